package httpapi

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"

	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/profile"
)

// profilePath is the own-profile route; PUT on it takes a multipart body larger than the API's
// JSON limit.
const profilePath = "/api/v1/profile"

// MaxProfileBodyBytes is the largest PUT /profile body: an avatar and a banner at their limit
// and the text fields.
const MaxProfileBodyBytes = 2*profile.MaxImageBytes + 64<<10

// maxProfileTextBytes bounds one text part of PUT /profile.
const maxProfileTextBytes = 16 << 10

// profileFieldDTO is one name/value pair of a profile.
type profileFieldDTO struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// profileResponse is GET /profile: the original's fields, plus the caller's goals.
type profileResponse struct {
	Username    string            `json:"username"`
	DisplayName *string           `json:"display_name,omitempty"`
	Bio         *string           `json:"bio,omitempty"`
	AvatarURL   *string           `json:"avatar_url,omitempty"`
	BannerURL   *string           `json:"banner_url,omitempty"`
	AlsoKnownAs *string           `json:"also_known_as"`
	Fields      []profileFieldDTO `json:"fields"`
	Role        string            `json:"role"`
	Goals       []goalDTO         `json:"goals"`
}

func (s *Server) getProfile(w http.ResponseWriter, r *http.Request) error {
	u, err := s.Profiles.Get(r.Context(), currentUser(r))
	if err != nil {
		return err
	}
	goals, err := s.Goals.List(r.Context(), u.ID)
	if err != nil {
		return err
	}
	p := u.Profile
	out := profileResponse{
		Username: u.Username, DisplayName: nonEmpty(p.DisplayName), Bio: nonEmpty(p.Bio),
		AvatarURL: s.imageURL(p.AvatarKey), BannerURL: s.imageURL(p.BannerKey), AlsoKnownAs: nonEmpty(p.AlsoKnownAs),
		Fields: make([]profileFieldDTO, 0, len(p.Fields)), Role: string(u.Role), Goals: toGoals(goals),
	}
	for _, f := range p.Fields {
		out.Fields = append(out.Fields, profileFieldDTO(f))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// putProfile replaces the caller's profile from a multipart form: text parts display_name, bio
// and also_known_as (absent ones are cleared, as in the original) and file parts avatar and
// banner (absent or empty ones keep the current image). Images are checked by their content;
// the client's part Content-Type is not trusted.
func (s *Server) putProfile(w http.ResponseWriter, r *http.Request) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return &httpError{Status: http.StatusUnsupportedMediaType, Message: "Content-Type must be multipart/form-data"}
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return badRequest("malformed multipart body: " + err.Error())
	}
	c := profile.UpdateCommand{UserID: currentUser(r)}
	seen := map[string]bool{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return multipartError(err)
		}
		name := part.FormName()
		if seen[name] && name != "" {
			return badRequest(fmt.Sprintf("part %q appears twice", name))
		}
		seen[name] = true
		switch name {
		case "display_name", "bio", "also_known_as":
			text, err := readPart(part, maxProfileTextBytes, name)
			if err != nil {
				return err
			}
			switch name {
			case "display_name":
				c.DisplayName = string(text)
			case "bio":
				c.Bio = string(text)
			default:
				c.AlsoKnownAs = string(text)
			}
		case profile.AvatarKind, profile.BannerKind:
			data, err := readPart(part, profile.MaxImageBytes, name)
			if err != nil {
				return err
			}
			if len(data) == 0 {
				continue // a form's file input left empty
			}
			if name == profile.AvatarKind {
				c.Avatar = data
			} else {
				c.Banner = data
			}
		default:
			if _, err := io.Copy(io.Discard, part); err != nil {
				return multipartError(err)
			}
		}
	}
	if err := s.Profiles.Update(r.Context(), c); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// readPart reads a whole part of at most limit bytes; a longer one is a 413 naming it.
func readPart(part *multipart.Part, limit int64, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(part, limit+1))
	if err != nil {
		return nil, multipartError(err)
	}
	if int64(len(data)) > limit {
		return nil, &httpError{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("%s exceeds %d bytes", name, limit)}
	}
	return data, nil
}

// multipartError is the status of a failed multipart read: 413 past the body limit, else 400.
func multipartError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &httpError{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("request body exceeds %d bytes", mbe.Limit)}
	}
	return badRequest("malformed multipart body: " + err.Error())
}

// profileFieldsRequest is PUT /profile/fields.
type profileFieldsRequest struct {
	Fields *[]struct {
		Name  *string `json:"name"`
		Value *string `json:"value"`
	} `json:"fields"`
}

func (s *Server) putProfileFields(w http.ResponseWriter, r *http.Request) error {
	var req profileFieldsRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Fields == nil {
		return required("fields")
	}
	fields := make([]domain.ProfileField, 0, len(*req.Fields))
	for i, f := range *req.Fields {
		if f.Name == nil {
			return required(fmt.Sprintf("fields[%d].name", i))
		}
		if f.Value == nil {
			return required(fmt.Sprintf("fields[%d].value", i))
		}
		fields = append(fields, domain.ProfileField{Name: *f.Name, Value: *f.Value})
	}
	if err := s.Profiles.SetFields(r.Context(), currentUser(r), fields); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// imageURL is the public URL of a stored image, nil for none.
func (s *Server) imageURL(key string) *string {
	if key == "" {
		return nil
	}
	u := s.BaseURL + "/images/" + key
	return &u
}

// nonEmpty is s, or nil when it is empty (an omitted or null field).
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// profileRoutes are the routes of the own profile, the users list, the goals and the admin's
// domain blocks.
func (s *Server) profileRoutes() []route {
	const get, post, put, del = http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete
	return []route{
		{method: get, pattern: profilePath, summary: "My profile, with my goals", access: accessUser, handle: s.getProfile,
			response: profileResponse{}, status: 200, errors: []int{401, 404}},
		{method: put, pattern: profilePath, summary: "Replace my profile (multipart: display_name, bio, also_known_as; files avatar, banner as jpeg, png or webp)",
			access: accessUser, handle: s.putProfile, status: 204, errors: []int{400, 401, 413, 415, 501}},
		{method: put, pattern: profilePath + "/fields", summary: "Replace my profile fields (at most 4)", access: accessUser,
			handle: s.putProfileFields, request: profileFieldsRequest{}, status: 204, errors: []int{400, 401, 415, 422}},
		{method: get, pattern: "/api/v1/users", summary: "Local users with their counts (e-mails only for an admin)",
			handle: s.listUsers, response: usersResponse{}, status: 200, errors: []int{401}},

		{method: get, pattern: "/api/v1/goals", summary: "My yearly goals with progress", access: accessUser,
			handle: s.listGoals(me), response: goalsResponse{}, status: 200, errors: []int{401}},
		{method: post, pattern: "/api/v1/goals", summary: "Set a goal for a year", access: accessUser, handle: s.createGoal,
			request: createGoalRequest{}, response: goalDTO{}, status: 200, errors: []int{400, 401, 415, 422}},
		{method: put, pattern: "/api/v1/goals/{year}", summary: "Change a year's goal", access: accessUser, handle: s.updateGoal,
			request: updateGoalRequest{}, response: goalDTO{}, status: 200, errors: []int{400, 401, 404, 415, 422}},
		{method: del, pattern: "/api/v1/goals/{year}", summary: "Delete a year's goal", access: accessUser, handle: s.deleteGoal,
			status: 204, errors: []int{400, 401, 404}},
		{method: get, pattern: "/api/v1/users/{id}/goals", summary: "A user's yearly goals with progress", access: accessUser,
			handle: s.listGoals(pathUser), response: goalsResponse{}, status: 200, errors: []int{400, 401, 404}},

		{method: get, pattern: "/api/v1/admin/blocked-domains", summary: "Blocked instances (admin)", access: accessAdmin,
			handle: s.listBlockedDomains, response: []blockedDomainDTO{}, status: 200, errors: []int{401, 403}},
		{method: post, pattern: "/api/v1/admin/blocked-domains", summary: "Block an instance and its subdomains (admin)",
			access: accessAdmin, handle: s.blockDomain, request: blockDomainRequest{}, status: 201,
			errors: []int{400, 401, 403, 415, 422}},
		{method: del, pattern: "/api/v1/admin/blocked-domains/{domain}", summary: "Unblock an instance (admin)",
			access: accessAdmin, handle: s.unblockDomain, status: 204, errors: []int{400, 401, 403, 404}},
	}
}
