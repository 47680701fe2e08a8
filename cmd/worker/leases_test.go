package main

import (
	"strings"
	"testing"
	"time"

	"moviesdiary/internal/config"
)

func TestCheckLeasesRejectsALedgerLeaseBelowTheClaimLease(t *testing.T) {
	t.Parallel()
	ok := config.Config{ClaimLease: 600 * time.Second, LedgerLease: 1800 * time.Second}
	if err := checkLeases(ok); err != nil {
		t.Fatalf("defaults rejected: %v", err)
	}
	bad := config.Config{ClaimLease: 600 * time.Second, LedgerLease: 60 * time.Second}
	err := checkLeases(bad)
	if err == nil || !strings.Contains(err.Error(), "EVENT_QUEUE_LEDGER_LEASE") || !strings.Contains(err.Error(), "EVENT_QUEUE_CLAIM_LEASE") {
		t.Fatalf("ledger lease below the claim lease: %v, want an error naming both variables", err)
	}
}
