package config

import "reflect"

// Defaults maps each environment variable of Config (and its embedded structs) to the default its
// tag declares, so tests can tie a default to the package constant it mirrors and help output can
// list them.
func Defaults() map[string]string {
	out := map[string]string{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for f := range typ.Fields() {
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if name := f.Tag.Get("envconfig"); name != "" {
				out[name] = f.Tag.Get("default")
			}
		}
	}
	walk(reflect.TypeFor[Config]())
	return out
}
