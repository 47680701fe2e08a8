package federation_test

import (
	"testing"

	"moviesdiary/internal/usecase/federation"
)

// TestPlainText: remote HTML becomes the text it displays. The regex the original used ate
// "1 < 2 and 3 > 2" and turned &lt;script&gt; into markup; a tokenizer keeps a bare "<",
// decodes entities once (into text, which every HTML rendering of ours escapes again), drops
// scripts with their bodies and keeps paragraphs apart; control characters never come out.
func TestPlainText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"1 < 2 and 3 > 2", "1 < 2 and 3 > 2"},
		{"<p>1 &lt; 2 and 3 &gt; 2</p>", "1 < 2 and 3 > 2"},
		{"&lt;script&gt;alert(1)&lt;/script&gt;", "<script>alert(1)</script>"},
		{"<script>alert(1)</script>hello", "hello"},
		{"<style>p{}</style><p>a</p><p>b<br>c</p>", "a\n\nb\nc"},
		{`<p>Great <a href="https://m.example/tags/film" class="hashtag">#<span>film</span></a></p>`, "Great #film"},
		{"&amp;lt;", "&lt;"},
		{"  plain  ", "plain"},
		{`<img src=x onerror=alert(1)>`, ""},
		// The text rule (domain.StripControl): control characters dropped, raw or as references.
		{"He\x00at\x1b[31m", "Heat[31m"},
		{"<p>He&#1;at</p>", "Heat"},
		{"<p>a\tb</p><p>c</p>", "a\tb\n\nc"},
	} {
		if got := federation.PlainText(c.in); got != c.want {
			t.Errorf("PlainText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
