// Package domain holds moviesdiary's domain events, error kinds and the delivery rules both
// event-bus backends share. It imports nothing else of the project.
package domain
