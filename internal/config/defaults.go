package config

import "reflect"

// setting is one environment variable of Config: its name, its default, whether its value is a
// secret (`secret:"true"`: it has a NAME_FILE form and is masked when printed), and the field
// it fills.
type setting struct {
	name, def string
	secret    bool
	field     reflect.Value
}

// settings lists the variables of c (and its embedded structs) in declaration order, each with
// its field of c.
func settings(c *Config) []setting {
	var out []setting
	var walk func(reflect.Value)
	walk = func(v reflect.Value) {
		for f := range v.Type().Fields() {
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(v.FieldByIndex(f.Index))
				continue
			}
			if name := f.Tag.Get("envconfig"); name != "" {
				out = append(out, setting{name: name, def: f.Tag.Get("default"), secret: f.Tag.Get("secret") == "true",
					field: v.FieldByIndex(f.Index)})
			}
		}
	}
	walk(reflect.ValueOf(c).Elem())
	return out
}

// Defaults maps each environment variable of Config (and its embedded structs) to the default its
// tag declares, so tests can tie a default to the package constant it mirrors and help output can
// list them.
func Defaults() map[string]string {
	out := map[string]string{}
	for _, s := range settings(&Config{}) {
		out[s.name] = s.def
	}
	return out
}
