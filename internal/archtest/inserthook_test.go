package archtest

import (
	"database/sql"
	"reflect"
	"runtime"
	"strings"
	"sync"

	"github.com/mattn/go-sqlite3"
)

// eventQueueTable is the outbox table whose inserts the hook watches.
const eventQueueTable = "event_queue"

// insertOrigin is where a row inserted into event_queue came from: the call stack's functions
// of this module, innermost first.
type insertOrigin struct{ stack []string }

// fromOutbox reports whether the insert ran inside outbox.Insert.
func (o insertOrigin) fromOutbox() bool {
	for _, f := range o.stack {
		if strings.HasPrefix(f, "moviesdiary/internal/outbox.Insert") || strings.HasPrefix(f, "moviesdiary/internal/outbox.insertChunk") {
			return true
		}
	}
	return false
}

func (o insertOrigin) String() string { return strings.Join(o.stack, " ← ") }

// insertLog records the origin of every row SQLite inserted into event_queue in this process.
type insertLog struct {
	mu      sync.Mutex
	origins map[string]insertOrigin // by stack, so a suite's thousands of rows stay a few entries
	rows    map[string]int
}

var inserts = insertLog{origins: map[string]insertOrigin{}, rows: map[string]int{}}

// record is the connections' update hook: SQLite calls it, on the goroutine stepping the
// statement, for every row a statement inserts, updates or deletes.
func (l *insertLog) record(op int, _, table string, _ int64) {
	if op != sqlite3.SQLITE_INSERT || table != eventQueueTable {
		return
	}
	pc := make([]uintptr, 64)
	frames := runtime.CallersFrames(pc[:runtime.Callers(2, pc)])
	var o insertOrigin
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "moviesdiary/") {
			o.stack = append(o.stack, f.Function)
		}
		if !more {
			break
		}
	}
	key := o.String()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.origins[key] = o
	l.rows[key]++
}

// snapshot returns the origins recorded so far and how many rows each inserted.
func (l *insertLog) snapshot() (map[string]insertOrigin, map[string]int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	origins, rows := map[string]insertOrigin{}, map[string]int{}
	for k, o := range l.origins {
		origins[k], rows[k] = o, l.rows[k]
	}
	return origins, rows
}

// hookSQLiteDrivers makes every registered go-sqlite3 driver (the store's reader, writer and
// adoption drivers, and plain "sqlite3") register inserts.record as each new connection's update
// hook, after the connect hook the driver already had. The store's drivers are registered under
// fixed names at init, so the hook is added to the registered values in place, before any
// connection opens; a driver that wraps go-sqlite3's is followed through its embedded
// *sqlite3.SQLiteDriver. It returns the names hooked.
func hookSQLiteDrivers() []string {
	var hooked []string
	for _, name := range sql.Drivers() {
		db, err := sql.Open(name, "")
		if err != nil {
			continue
		}
		d := sqliteDriver(db.Driver())
		db.Close()
		if d == nil {
			continue
		}
		connect := d.ConnectHook
		d.ConnectHook = func(c *sqlite3.SQLiteConn) error {
			c.RegisterUpdateHook(inserts.record)
			if connect != nil {
				return connect(c)
			}
			return nil
		}
		hooked = append(hooked, name)
	}
	return hooked
}

// sqliteDriver is d's go-sqlite3 driver: d itself, or a *sqlite3.SQLiteDriver embedded in the
// struct d is; nil when d is another engine's.
func sqliteDriver(d any) *sqlite3.SQLiteDriver {
	if s, ok := d.(*sqlite3.SQLiteDriver); ok {
		return s
	}
	v := reflect.ValueOf(d)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	want := reflect.TypeFor[*sqlite3.SQLiteDriver]()
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.Anonymous && f.Type == want && f.IsExported() {
			return v.Field(i).Interface().(*sqlite3.SQLiteDriver)
		}
	}
	return nil
}
