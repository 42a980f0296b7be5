package protocol

import "testing"

// BenchmarkParse1MBTranscript decodes and parses a 1 MB transcript (tool
// calls, tool results, a final answer split over three entries), as the
// engine does with a session's new entries.
func BenchmarkParse1MBTranscript(b *testing.B) {
	data := hugeTranscript(oneMB)
	p := newTestParser(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		entries, _, err := DecodeTranscript(data)
		if err != nil {
			b.Fatal(err)
		}
		res := p.ParseEntries(entries, Options{Phase: PhaseCompletion})
		if res.Failure != nil {
			b.Fatalf("no answer: %s", res.Failure.Message)
		}
	}
}

// BenchmarkParseEntries1MB parses already decoded entries.
func BenchmarkParseEntries1MB(b *testing.B) {
	entries, _, err := DecodeTranscript(hugeTranscript(oneMB))
	if err != nil {
		b.Fatal(err)
	}
	p := newTestParser(b)
	b.ReportAllocs()
	for b.Loop() {
		if res := p.ParseEntries(entries, Options{Phase: PhaseCompletion}); res.Failure != nil {
			b.Fatal(res.Failure.Message)
		}
	}
}

// BenchmarkParseText1MBManyBlocks parses 1 MB of text holding thousands of
// progress blocks.
func BenchmarkParseText1MBManyBlocks(b *testing.B) {
	text := string(manyBlocks(oneMB))
	p := newTestParser(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if res := p.ParseText(text, Options{Phase: PhaseCompletion}); res.Failure != nil {
			b.Fatal(res.Failure.Message)
		}
	}
}

// BenchmarkAdversarial1MB parses inputs built to find quadratic paths.
func BenchmarkAdversarial1MB(b *testing.B) {
	p := newTestParser(b)
	for name, text := range adversarialInputs() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				p.ParseText(text, Options{})
			}
		})
	}
}
