package config

import (
	"os"
	"strings"
	"testing"
)

var natsVars = []string{"NATS_URL", "NATS_MODE", "NATS_SUBJECT_PREFIX", "NATS_STREAM_NAME", "NATS_CONSUMER_NAME", "NATS_STREAM_REPLICAS"}

func clearNATSEnv(t *testing.T) {
	clearEnv(t)
	for _, v := range natsVars {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
}

func TestNATSDefaults(t *testing.T) {
	clearNATSEnv(t)
	c, err := Load()
	if err != nil {
		t.Fatalf("no variables at all must load: %v", err)
	}
	if c.NATSURL != "nats://localhost:4222" || c.NATSMode != "jetstream" || c.NATSSubjectPrefix != "movies-diary.events" ||
		c.NATSStreamName != "MOVIES_DIARY_EVENTS" || c.NATSConsumerName != "worker" {
		t.Fatalf("NATS defaults: %+v", c)
	}
}

func TestNATSGoodValues(t *testing.T) {
	clearNATSEnv(t)
	t.Setenv("EVENT_BUS_BACKEND", "nats")
	t.Setenv("NATS_URL", "nats://a:4222, tls://b:4222")
	t.Setenv("NATS_MODE", "core")
	t.Setenv("NATS_SUBJECT_PREFIX", "md.prod.events")
	t.Setenv("NATS_STREAM_NAME", "EVENTS_2")
	t.Setenv("NATS_CONSUMER_NAME", "workers-a")
	if _, err := Load(); err != nil {
		t.Fatalf("valid NATS settings rejected: %v", err)
	}
}

func TestNATSBadValuesNameTheVariable(t *testing.T) {
	for _, tc := range []struct{ v, val string }{
		{"NATS_URL", "localhost:4222"},
		{"NATS_URL", "http://nats:4222"},
		{"NATS_URL", "nats://a:4222,"},
		{"NATS_MODE", "streaming"},
		{"NATS_SUBJECT_PREFIX", "events.>"},
		{"NATS_SUBJECT_PREFIX", "events..x"},
		{"NATS_SUBJECT_PREFIX", "my events"},
		{"NATS_STREAM_NAME", "MOVIES.EVENTS"},
		{"NATS_STREAM_NAME", " "},
		{"NATS_CONSUMER_NAME", "work*"},
		{"NATS_STREAM_REPLICAS", "0"},
		{"NATS_STREAM_REPLICAS", "7"},
	} {
		clearNATSEnv(t)
		t.Setenv(tc.v, tc.val)
		_, err := Load()
		if err == nil || !strings.HasPrefix(err.Error(), tc.v+":") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%q: error %v; want one line starting with %q", tc.v, tc.val, err, tc.v+":")
		}
	}
}
