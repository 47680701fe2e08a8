package movie

// OnSearchWait makes c call f whenever a search starts waiting on a concurrent identical one, so
// a test can wait for callers to gather instead of sleeping.
func OnSearchWait(c *SearchCache, f func()) { c.onWait = f }
