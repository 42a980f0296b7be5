package engine

import (
	"encoding/json"
)

// UnmarshalJSON reads a usage in the Messages API's snake_case or in
// camelCase (inputTokens, outputTokens, cacheReadInputTokens,
// cacheCreationInputTokens); a snake_case field present wins.
func (u *usageJSON) UnmarshalJSON(b []byte) error {
	var v struct {
		In         *int64 `json:"input_tokens"`
		Out        *int64 `json:"output_tokens"`
		CacheWrite *int64 `json:"cache_creation_input_tokens"`
		CacheRead  *int64 `json:"cache_read_input_tokens"`
		InC        *int64 `json:"inputTokens"`
		OutC       *int64 `json:"outputTokens"`
		CacheWrC   *int64 `json:"cacheCreationInputTokens"`
		CacheRdC   *int64 `json:"cacheReadInputTokens"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	pick := func(a, b *int64) int64 {
		switch {
		case a != nil:
			return *a
		case b != nil:
			return *b
		}
		return 0
	}
	*u = usageJSON{InputTokens: pick(v.In, v.InC), OutputTokens: pick(v.Out, v.OutC),
		CacheCreationInputTokens: pick(v.CacheWrite, v.CacheWrC), CacheReadInputTokens: pick(v.CacheRead, v.CacheRdC)}
	return nil
}
