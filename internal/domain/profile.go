package domain

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// Limits of a profile's text. The original had none; these keep a profile a profile (and an
// actor document of a sane size).
const (
	MaxDisplayNameLength = 100
	MaxBioLength         = 5000
	MaxAlsoKnownAsLength = 2048
	MaxProfileFields     = 4
	MaxProfileFieldName  = 100
	MaxProfileFieldValue = 500
)

// Profile is what a user shows of themselves besides their username: federation publishes it as
// the actor's name, summary, icon, image, alsoKnownAs and attachment.
type Profile struct {
	DisplayName string
	Bio         string
	// AvatarKey and BannerKey are object-storage keys, "" for none.
	AvatarKey string
	BannerKey string
	// AlsoKnownAs is the actor URL of the user's other account, "" for none.
	AlsoKnownAs string
	Fields      []ProfileField
}

// ProfileField is one name/value pair of a profile (a website, pronouns).
type ProfileField struct {
	Name  string
	Value string
}

// NewProfileText trims and checks a profile's text fields; alsoKnownAs must be an absolute http(s)
// URL or empty.
func NewProfileText(displayName, bio, alsoKnownAs string) (displayNameOut, bioOut, akaOut string, err error) {
	displayName, bio, alsoKnownAs = strings.TrimSpace(displayName), strings.TrimSpace(bio), strings.TrimSpace(alsoKnownAs)
	switch {
	case !utf8.ValidString(displayName) || !utf8.ValidString(bio) || !utf8.ValidString(alsoKnownAs):
		return "", "", "", Invalid("Profile text must be UTF-8")
	case utf8.RuneCountInString(displayName) > MaxDisplayNameLength:
		return "", "", "", Invalid("Display name exceeds %d characters", MaxDisplayNameLength)
	case utf8.RuneCountInString(bio) > MaxBioLength:
		return "", "", "", Invalid("Bio exceeds %d characters", MaxBioLength)
	case len(alsoKnownAs) > MaxAlsoKnownAsLength:
		return "", "", "", Invalid("also_known_as exceeds %d characters", MaxAlsoKnownAsLength)
	}
	if alsoKnownAs != "" {
		u, perr := url.Parse(alsoKnownAs)
		if perr != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return "", "", "", Invalid("also_known_as must be the URL of an actor (https://…)")
		}
	}
	return displayName, bio, alsoKnownAs, nil
}

// NewProfileFields trims and checks a profile's fields: at most MaxProfileFields, each with a
// name.
func NewProfileFields(fields []ProfileField) ([]ProfileField, error) {
	if len(fields) > MaxProfileFields {
		return nil, Invalid("Maximum %d profile fields allowed", MaxProfileFields)
	}
	out := make([]ProfileField, 0, len(fields))
	for i, f := range fields {
		name, value := strings.TrimSpace(f.Name), strings.TrimSpace(f.Value)
		switch {
		case name == "":
			return nil, Invalid("Profile field %d has no name", i+1)
		case utf8.RuneCountInString(name) > MaxProfileFieldName:
			return nil, Invalid("Profile field name exceeds %d characters", MaxProfileFieldName)
		case utf8.RuneCountInString(value) > MaxProfileFieldValue:
			return nil, Invalid("Profile field value exceeds %d characters", MaxProfileFieldValue)
		}
		out = append(out, ProfileField{Name: name, Value: value})
	}
	return out, nil
}
