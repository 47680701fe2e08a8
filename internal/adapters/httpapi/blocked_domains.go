package httpapi

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
)

// blockedDomainDTO is one entry of GET /admin/blocked-domains.
type blockedDomainDTO struct {
	Domain    string  `json:"domain"`
	Reason    *string `json:"reason"`
	BlockedAt string  `json:"blocked_at"` // RFC 3339
}

// blockDomainRequest is POST /admin/blocked-domains.
type blockDomainRequest struct {
	Domain *string `json:"domain"`
	Reason *string `json:"reason,omitempty"`
}

func (s *Server) listBlockedDomains(w http.ResponseWriter, r *http.Request) error {
	blocks, err := s.Moderation.DomainBlocks(r.Context(), currentUser(r))
	if err != nil {
		return err
	}
	out := make([]blockedDomainDTO, 0, len(blocks))
	for _, b := range blocks {
		out = append(out, blockedDomainDTO{Domain: b.Domain, Reason: nonEmpty(b.Reason), BlockedAt: b.BlockedAt.UTC().Format(time.RFC3339)})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) blockDomain(w http.ResponseWriter, r *http.Request) error {
	var req blockDomainRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Domain == nil {
		return required("domain")
	}
	reason := ""
	if req.Reason != nil {
		reason = *req.Reason
	}
	if err := s.Moderation.BlockDomain(r.Context(), currentUser(r), *req.Domain, reason); err != nil {
		return err
	}
	w.WriteHeader(http.StatusCreated)
	return nil
}

func (s *Server) unblockDomain(w http.ResponseWriter, r *http.Request) error {
	if err := s.Moderation.UnblockDomain(r.Context(), currentUser(r), chi.URLParam(r, "domain")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
