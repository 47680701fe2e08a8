package config

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"time"
)

// Masked stands for a secret's value in Print's output.
const Masked = "********"

// Print writes the effective settings, one NAME=value line each in the README's order: the
// defaults, the environment and the secrets read from their NAME_FILE (listed beside them), as
// the binaries would run with them. Secrets are masked: a set one reads Masked, and
// DATABASE_URL keeps everything but its password.
func (c Config) Print(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# effective settings: defaults, the environment and *_FILE secrets; secrets masked")
	for _, s := range settings(&c) {
		v := s.field.Interface()
		text := fmt.Sprint(v)
		if d, ok := v.(time.Duration); ok {
			text = d.String()
		}
		if s.secret && text != "" {
			text = Masked
			if s.name == "DATABASE_URL" {
				text = maskDatabaseURL(c.DatabaseURL)
			}
		}
		if path, ok := c.secretFiles[s.name]; ok {
			fmt.Fprintf(bw, "%s%s=%s\n", s.name, FileSuffix, path)
		}
		fmt.Fprintf(bw, "%s=%s\n", s.name, text)
	}
	return bw.Flush()
}

// maskDatabaseURL is DATABASE_URL without its password, in the user part or the query
// (postgres://md:xxxxx@db/md, ?password=xxxxx, as url.URL.Redacted hides it); a SQLite path is
// shown as it is.
func maskDatabaseURL(raw string) string {
	if !isPostgres(raw) {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Masked
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}
