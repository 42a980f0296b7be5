package skills

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// TaskInfo is what matching needs to know about a task.
type TaskInfo struct {
	ID string `json:"id,omitempty"`
	// Type is the task type (design, implementation, feature, bugfix,
	// refactor, testing, documentation); a hard filter.
	Type string `json:"type"`
	// Complexity is easy, normal or complex (low, medium and high are
	// accepted, see NormalizeComplexity); a hard filter, and it sets how
	// many skills are picked.
	Complexity string `json:"complexity"`
	// Objective and AcceptanceCriteria are where keywords come from.
	Objective          string   `json:"objective"`
	AcceptanceCriteria []string `json:"acceptance_criteria,omitempty"`
	// Keywords are extra keywords, such as the task's title words or tags.
	Keywords []string `json:"keywords,omitempty"`
	// ProjectDomains is the project's domain (journal index project.domain).
	ProjectDomains []string `json:"project_domains,omitempty"`
}

// Match is one picked skill with its score and why.
type Match struct {
	Skill Skill `json:"skill"`
	Score int   `json:"score"`
	// Reasons explain the score, one line per part.
	Reasons []string `json:"reasons"`
}

// Match picks the skills for task from the library exactly as seed 004's
// matchSkills does (a nil library has no skills):
//
//  1. Hard filters: the skill's task_types include the task type and its
//     complexity list includes the task's complexity. A task without a
//     type or with an unknown complexity gets no skills.
//  2. Score: +3 when the skill's domain intersects the project domain; +1
//     for each skill keyword found among the task's keywords; +1 when the
//     skill's pairs_with names a skill already selected.
//  3. Sort by score, highest first; keep one skill per category, the
//     highest scorer; take at most 3 (easy), 7 (normal) or 15 (complex).
//
// Where the seed is silent:
//   - Task keywords are the words of the objective and the acceptance
//     criteria plus TaskInfo.Keywords, lower-cased; a word is a run of
//     letters, digits and the characters + # . (so "c++" and "c#" stay
//     words; an outer "." is dropped), and "-" or "_" split a word into a
//     phrase. A one-word skill keyword matches a task word; a keyword of
//     several words ("table-driven", "sql injection") matches when its
//     words appear consecutively within the objective or one criterion.
//     Each skill keyword counts once.
//   - "selected_skills" in the pairing bonus are the skills selected
//     before: selection is greedy, so after each pick the remaining
//     candidates are re-scored and the next-best is taken. The bonus is +1
//     however many selected skills a skill pairs with, and only the
//     candidate's own pairs_with counts.
//   - Ties keep library (discovery) order, so a project skill beats a
//     shipped one of equal score.
//   - Every candidate that passes the hard filters may be picked, even with
//     score 0, as in the seed; the limit bounds the count.
//   - A skill without a category is a category of its own.
func (l *Library) Match(task TaskInfo) []Match {
	if l == nil {
		return nil
	}
	return MatchSkills(task, l.Skills)
}

// MatchSkills is Match over a list of skills (in discovery order).
func MatchSkills(task TaskInfo, skills []Skill) []Match {
	complexity := NormalizeComplexity(task.Complexity)
	limit, ok := MaxSkills(complexity)
	taskType := strings.ToLower(strings.TrimSpace(task.Type))
	if !ok || taskType == "" {
		return nil
	}
	words := taskWords(task)
	domains := map[string]bool{}
	for _, d := range task.ProjectDomains {
		domains[strings.ToLower(strings.TrimSpace(d))] = true
	}
	type cand struct {
		skill    Skill
		base     int
		reasons  []string
		category string
	}
	var cands []cand
	for _, s := range skills {
		if !containsFold(s.TaskTypes, taskType) || !containsFold(s.Complexity, complexity) {
			continue
		}
		c := cand{skill: s, category: s.Category}
		if c.category == "" {
			c.category = "\x00" + s.ID
		}
		c.reasons = append(c.reasons, fmt.Sprintf("task type %s and complexity %s match", taskType, complexity))
		var hitDomains []string
		for _, d := range s.Domain {
			if d = strings.ToLower(strings.TrimSpace(d)); domains[d] && !slices.Contains(hitDomains, d) {
				hitDomains = append(hitDomains, d)
			}
		}
		if len(hitDomains) > 0 {
			c.base += 3
			c.reasons = append(c.reasons, fmt.Sprintf("+3 domain %s", strings.Join(hitDomains, ", ")))
		}
		var hitKeys []string
		for _, k := range s.Keywords {
			k = strings.ToLower(strings.TrimSpace(k))
			if words.has(k) && !slices.Contains(hitKeys, k) {
				hitKeys = append(hitKeys, k)
			}
		}
		if len(hitKeys) > 0 {
			c.base += len(hitKeys)
			c.reasons = append(c.reasons, fmt.Sprintf("+%d keywords %s", len(hitKeys), strings.Join(hitKeys, ", ")))
		}
		cands = append(cands, c)
	}
	var out []Match
	taken := map[string]bool{}
	var selected []string
	for len(out) < limit {
		best, bestScore, bestPair := -1, 0, ""
		for i, c := range cands {
			if taken[c.category] {
				continue
			}
			score, pair := c.base, ""
			for _, p := range c.skill.PairsWith {
				if slices.Contains(selected, p) {
					score++
					pair = p
					break
				}
			}
			if best < 0 || score > bestScore {
				best, bestScore, bestPair = i, score, pair
			}
		}
		if best < 0 {
			break
		}
		c := cands[best]
		reasons := slices.Clone(c.reasons)
		if bestPair != "" {
			reasons = append(reasons, "+1 pairs with "+bestPair)
		}
		out = append(out, Match{Skill: c.skill, Score: bestScore, Reasons: reasons})
		taken[c.category] = true
		selected = append(selected, c.skill.ID)
	}
	return out
}

func containsFold(list []string, v string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.EqualFold(strings.TrimSpace(s), v) })
}

// wordSet holds the task's words and its text of words for phrases.
type wordSet struct {
	set    map[string]bool
	joined string // " w1 w2 … " for phrase search
}

func (w wordSet) has(keyword string) bool {
	parts := splitWords(keyword)
	switch len(parts) {
	case 0:
		return false
	case 1:
		return w.set[parts[0]]
	}
	return strings.Contains(w.joined, " "+strings.Join(parts, " ")+" ")
}

func taskWords(t TaskInfo) wordSet {
	var all []string
	all = append(all, splitWords(t.Objective)...)
	for _, c := range t.AcceptanceCriteria {
		all = append(all, "\x00") // phrases do not span two criteria
		all = append(all, splitWords(c)...)
	}
	for _, k := range t.Keywords {
		all = append(all, "\x00")
		all = append(all, splitWords(k)...)
	}
	ws := wordSet{set: map[string]bool{}}
	for _, w := range all {
		if w != "\x00" {
			ws.set[w] = true
		}
	}
	ws.joined = " " + strings.Join(all, " ") + " "
	return ws
}

// splitWords lower-cases s and splits it into words: runs of letters,
// digits and + # _ - . with a trailing . or - dropped. Hyphens and
// underscores inside a word also split it into a phrase, so "table-driven"
// in a task meets the keyword "table driven" and the other way round.
func splitWords(s string) []string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("+#_-.", r)
	})
	var out []string
	for _, w := range f {
		w = strings.TrimRight(w, ".-_")
		w = strings.TrimLeft(w, ".-_")
		if w == "" {
			continue
		}
		if strings.ContainsAny(w, "-_") {
			for _, p := range strings.FieldsFunc(w, func(r rune) bool { return r == '-' || r == '_' }) {
				out = append(out, p)
			}
			continue
		}
		out = append(out, w)
	}
	return out
}
