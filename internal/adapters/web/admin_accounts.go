package web

import (
	"net/http"
	"time"

	"github.com/google/uuid"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/user"
)

// The admins' accounts page: who has an account, who waits for approval (REGISTRATION_MODE
// approval), and one-time invite links. Roles and deletion stay with `server admin users`.

// accountsPage is the accounts list with, after an invite was made, its link (shown once).
type accountsPage struct {
	formState
	Mode    domain.RegistrationMode
	Pending []user.Summary
	Users   []user.Summary
	Invite  string
	Expires time.Time
}

func (s *Server) adminAccounts(w http.ResponseWriter, r *http.Request, v visit) error {
	return s.renderAccounts(w, r, v, http.StatusOK, accountsPage{})
}

func (s *Server) renderAccounts(w http.ResponseWriter, r *http.Request, v visit, status int, d accountsPage) error {
	if v.me.Role != domain.RoleAdmin {
		return domain.Forbidden("Only an admin manages accounts")
	}
	list, err := s.Users.List(r.Context(), v.me.ID)
	if err != nil {
		return err
	}
	for _, u := range list {
		if u.User.Pending {
			d.Pending = append(d.Pending, u)
		} else {
			d.Users = append(d.Users, u)
		}
	}
	d.Mode = s.Auth.Registration()
	return s.render(w, r, v, status, "accounts", "Accounts", d)
}

// adminAccountAction approves a waiting account (approve=<id>) or makes an invite link
// (invite=1), which the answer shows once.
func (s *Server) adminAccountAction(w http.ResponseWriter, r *http.Request, v visit) error {
	ctx := r.Context()
	if id := r.PostFormValue("approve"); id != "" {
		uid, err := uuid.Parse(id)
		if err == nil {
			err = s.Auth.Approve(ctx, v.me.ID, uid)
		} else {
			err = domain.Invalid("approve must name an account")
		}
		if err != nil {
			if st := statusOf(err); st >= 500 || st == http.StatusForbidden {
				return err
			}
			return s.renderAccounts(w, r, v, statusOf(err), accountsPage{formState: formState{Err: messageOf(err)}})
		}
		return redirect(w, r, "/admin/accounts?done=approved")
	}
	if r.PostFormValue("invite") == "" {
		return s.renderAccounts(w, r, v, http.StatusBadRequest, accountsPage{formState: formState{Err: "Nothing to do: approve an account or make an invite link"}})
	}
	url, exp, err := s.Auth.CreateInvite(ctx, v.me.ID, s.BaseURL)
	if err != nil {
		return err
	}
	return s.renderAccounts(w, r, v, http.StatusOK, accountsPage{Invite: url, Expires: exp})
}
