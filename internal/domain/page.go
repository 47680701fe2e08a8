package domain

// MaxLimit is the largest page a list returns.
const MaxLimit = 100

// Page is one window of a list: at most Limit items after skipping Offset.
type Page struct {
	Limit  int
	Offset int
}

// NewPage validates a requested window: limit 1..MaxLimit, offset not negative.
func NewPage(limit, offset int) (Page, error) {
	if limit < 1 || limit > MaxLimit {
		return Page{}, Invalid("Limit must be between 1 and %d", MaxLimit)
	}
	if offset < 0 {
		return Page{}, Invalid("Offset must not be negative")
	}
	return Page{Limit: limit, Offset: offset}, nil
}

// Paged is one page of a list and the size of the whole list.
type Paged[T any] struct {
	Items []T
	Total int
	Page  Page
}
