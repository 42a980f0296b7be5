package template

// ResolveDocument resolves a template document as the editor holds it,
// before it is stored: its parents come from the stored templates, the
// document itself from data. It lets the editor show the merged result of
// unsaved changes. An invalid document is an ErrInvalid error with Problems.
func (m *Manager) ResolveDocument(data []byte) (Resolved, error) {
	doc, err := parseCandidate(data)
	if err != nil {
		return Resolved{}, err
	}
	id, _ := doc["id"].(string)
	m.mu.RLock()
	defer m.mu.RUnlock()
	overlay := map[string]map[string]any{id: doc}
	if problems := m.check(doc, overlay); len(problems) > 0 {
		return Resolved{}, invalidError(id, problems)
	}
	return m.resolve(id, overlay)
}
