package httpapi

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestEveryQueryParameterIsDocumented reads the handlers' source: the query parameters each
// route's handler reads (page() is limit and offset; queryUUID(r, "x") and <query>.Get("x") are
// x) are exactly the ones its route declares for the OpenAPI document, so the two cannot drift.
func TestEveryQueryParameterIsDocumented(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]*ast.FuncDecl{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				methods[fd.Name.Name] = fd
			}
		}
	}
	s := New(Deps{BaseURL: "http://diary.test"})
	checked := 0
	for _, rt := range s.routes() {
		fn := runtime.FuncForPC(reflect.ValueOf(rt.handle).Pointer()).Name()
		// "…httpapi.(*Server).diary-fm", "…(*Server).instanceFeed.func1", "…httpapi.deleteByID.func1"
		name := fn[strings.LastIndex(fn, "/")+1:]
		name = strings.TrimPrefix(name, "httpapi.")
		name = strings.TrimPrefix(name, "(*Server).")
		name, _, _ = strings.Cut(name, ".")
		name = strings.TrimSuffix(name, "-fm")
		decl := methods[name]
		if decl == nil {
			continue // another adapter's handler (federation routes)
		}
		checked++
		var read []string
		ast.Inspect(decl, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch fun := call.Fun.(type) {
			case *ast.Ident:
				switch {
				case fun.Name == "page":
					read = append(read, "limit", "offset")
				case fun.Name == "queryUUID" && len(call.Args) == 2:
					read = append(read, literal(call.Args[1]))
				}
			case *ast.SelectorExpr:
				if fun.Sel.Name == "Get" && len(call.Args) == 1 && readsQuery(fun.X) {
					read = append(read, literal(call.Args[0]))
				}
			}
			return true
		})
		var declared []string
		for _, q := range rt.query {
			declared = append(declared, q.name)
		}
		slices.Sort(read)
		read = slices.Compact(read)
		slices.Sort(declared)
		if !slices.Equal(read, declared) {
			t.Errorf("%s %s (%s) reads query %v, declares %v", rt.method, rt.pattern, name, read, declared)
		}
	}
	if checked < 40 {
		t.Errorf("only %d handlers found in the source", checked)
	}
}

// readsQuery reports whether x is a url.Values: r.URL.Query(), or a variable named q or qs.
func readsQuery(x ast.Expr) bool {
	switch v := x.(type) {
	case *ast.Ident:
		return v.Name == "q" || v.Name == "qs"
	case *ast.CallExpr:
		sel, ok := v.Fun.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "Query"
	}
	return false
}

func literal(e ast.Expr) string {
	if lit, ok := e.(*ast.BasicLit); ok {
		if s, err := strconv.Unquote(lit.Value); err == nil {
			return s
		}
	}
	return "<non-literal>"
}
