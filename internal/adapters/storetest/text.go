package storetest

import (
	"context"
	"encoding/csv"
	"io"
	"strings"
	"testing"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/importer"
	"moviesdiary/internal/usecase/integration"
	"moviesdiary/internal/usecase/movie"
)

// Text is what RunText needs of a store.
type Text interface {
	importer.Store
	integration.Store
	CreateUser(ctx context.Context, u domain.User) (domain.User, error)
}

// RunText holds the entry points that bypass the REST API to the text rule (domain.CheckText):
// a NUL in an import cell or a media server's title was a 500 on PostgreSQL, which cannot store
// it — the confirm failed as a whole, none of its valid rows imported, every time. An import row
// with a control character is that row's error; a webhook's title is kept without it.
func RunText(t *testing.T, open func(t *testing.T) Text) {
	ctx := context.Background()

	t.Run("ImportRowWithControlCharacters", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		alice := createUser(t, s, "alice")
		svc := importer.NewService(s, openCSV, movie.NewResolver(s, nil, nil), nil)
		file := "Title,Year,Rating,Date,Comment\nHe\x00at,1995,4,2024-01-01,\nRan,1985,5,2024-01-02,fine\n" +
			"Alien,1979,3,2024-01-03,\"two\nlines\"\nPsycho,1960,4,2024-01-04,bell\x07\n"
		c, err := svc.Create(ctx, importer.Upload{UserID: alice.ID, Body: strings.NewReader(file)})
		must(t, err)
		_, err = svc.SetMapping(ctx, alice.ID, c.Session.ID, []importer.MappingRequest{
			{SourceColumn: "Title", Field: "title"}, {SourceColumn: "Year", Field: "release_year"},
			{SourceColumn: "Rating", Field: "rating"}, {SourceColumn: "Date", Field: "watched_at"},
			{SourceColumn: "Comment", Field: "comment"}})
		must(t, err)
		res, err := svc.Confirm(ctx, alice.ID, c.Session.ID, []int{0, 1, 2, 3}, false)
		must(t, err)
		if res.Imported != 2 || len(res.Failed) != 2 || res.Failed[0].Index != 0 || res.Failed[1].Index != 3 ||
			!strings.Contains(res.Failed[0].Error, "title: control character U+0000") ||
			!strings.Contains(res.Failed[1].Error, "comment: control character U+0007") {
			t.Fatalf("confirm = %+v, want rows 1 and 2 imported, 0 and 3 failed on their control characters", res)
		}
	})

	t.Run("WebhookTitleWithControlCharacters", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		alice := createUser(t, s, "alice")
		svc := integration.NewService(s, movie.NewResolver(s, nil, nil), nil)
		rep, ok, err := integration.ParseJellyfin([]byte(`{"NotificationType":"PlaybackStop","ItemType":"Movie",
			"Name":"He\u0000at\u001b","Year":1995,"PlayedToCompletion":true}`))
		if err != nil || !ok {
			t.Fatalf("parse = %v, %v", ok, err)
		}
		tok := domain.WebhookToken{UserID: alice.ID, Provider: domain.SourceJellyfin}
		if out, err := svc.Ingest(ctx, tok, rep); err != nil || out != integration.Queued {
			t.Fatalf("ingest = %v, %v; want queued", out, err)
		}
		q, err := s.PendingWatches(ctx, alice.ID)
		must(t, err)
		if len(q) != 1 || q[0].Title != "Heat" {
			t.Fatalf("queue = %+v, want Heat", q)
		}
	})
}

// csvFile is an upload read with encoding/csv: the suite's stand-in for the tabular parser,
// which the stores' suite does not import (adapters import no other adapter).
type csvFile struct {
	r      *csv.Reader
	header []string
}

func openCSV(r io.Reader, _ string) (importer.File, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	h, err := cr.Read()
	if err != nil {
		return nil, err
	}
	return &csvFile{r: cr, header: h}, nil
}

func (f *csvFile) Format() string   { return "csv" }
func (f *csvFile) Header() []string { return f.header }
func (f *csvFile) Close() error     { return nil }
func (f *csvFile) Next() ([]string, string, error) {
	rec, err := f.r.Read()
	return rec, "", err
}
