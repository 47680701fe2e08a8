package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// validateNATS checks the NATS_* variables. They are checked whatever the backend, so a typo
// surfaces before the day someone switches to nats.
func (c Config) validateNATS() error {
	for _, u := range strings.Split(c.NATSURL, ",") {
		p, err := url.Parse(strings.TrimSpace(u))
		if err != nil || p.Host == "" {
			return fmt.Errorf("NATS_URL: %q is not a NATS server URL (nats://host:4222, comma-separated for a cluster)", c.NATSURL)
		}
		switch p.Scheme {
		case "nats", "tls", "ws", "wss":
		default:
			return fmt.Errorf("NATS_URL: scheme %q is not one of nats, tls, ws, wss", p.Scheme)
		}
	}
	if c.NATSAckWait < time.Second {
		return fmt.Errorf("NATS_ACK_WAIT: %s must be at least 1s", c.NATSAckWait)
	}
	if c.NATSStreamReplicas < 1 || c.NATSStreamReplicas > 5 {
		return fmt.Errorf("NATS_STREAM_REPLICAS: %d must be between 1 and 5 (JetStream's limit; 3 for a cluster)", c.NATSStreamReplicas)
	}
	if c.NATSMode != "jetstream" && c.NATSMode != "core" {
		return fmt.Errorf("NATS_MODE: %q is not a mode (jetstream or core)", c.NATSMode)
	}
	for _, token := range strings.Split(c.NATSSubjectPrefix, ".") {
		if token == "" || strings.ContainsAny(token, "*> \t\r\n") {
			return fmt.Errorf("NATS_SUBJECT_PREFIX: %q must be dot-separated tokens without spaces or wildcards", c.NATSSubjectPrefix)
		}
	}
	if !natsName(c.NATSStreamName) {
		return fmt.Errorf("NATS_STREAM_NAME: %q must be non-empty, without spaces, dots, wildcards or slashes", c.NATSStreamName)
	}
	if !natsName(c.NATSConsumerName) {
		return fmt.Errorf("NATS_CONSUMER_NAME: %q must be non-empty, without spaces, dots, wildcards or slashes", c.NATSConsumerName)
	}
	return nil
}

// natsName reports whether s can name a JetStream stream or consumer (and a queue group).
func natsName(s string) bool {
	return s != "" && !strings.ContainsAny(s, ".*>/\\ \t\r\n")
}
