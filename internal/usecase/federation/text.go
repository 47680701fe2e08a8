package federation

import (
	"io"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"moviesdiary/internal/domain"
)

// PlainText turns a remote string (AS2 content, a name, a summary: HTML) into the plain text it
// displays, with golang.org/x/net/html's tokenizer, the same one browsers' parsing follows:
// markup is dropped, entities are decoded once, paragraphs and line breaks become newlines, and
// script, style and template bodies disappear. What comes out is text, never markup: a literal
// "<script>" in it is the characters an author typed (sent as &lt;script&gt;), and every place
// that shows our text as HTML escapes it again. A bare "<" that starts no tag ("1 < 2") stays.
// Control characters (but newline, carriage return and tab) are dropped, as the text rule says
// of what a machine relays (domain.StripControl): a NUL, even one sent as &#0;, never reaches a store.
func PlainText(s string) string {
	return domain.StripControl(plainText(s), true)
}

func plainText(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return strings.TrimSpace(s)
	}
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(s))
	skip := 0 // depth inside script/style/template
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				return strings.TrimSpace(b.String())
			}
			return strings.TrimSpace(blankLines.ReplaceAllString(b.String(), "\n\n"))
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			switch a := atom.Lookup(name); a {
			case atom.Script, atom.Style, atom.Template, atom.Noscript, atom.Iframe, atom.Object:
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
			case atom.Br:
				b.WriteByte('\n')
			case atom.P, atom.Div, atom.Blockquote, atom.Li, atom.Pre, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				if tt == html.EndTagToken {
					b.WriteString("\n\n")
				}
			}
		}
	}
}

// blankLines are runs of more than one empty line.
var blankLines = regexp.MustCompile(`\n{3,}`)
