package config

import (
	"fmt"
	"strconv"

	"moviesdiary/internal/domain"
)

// RegistrationModeDefault is REGISTRATION_MODE's default: anyone may ask for an account, an admin
// approves it. No mode lets a stranger become the admin: the first admin comes from the one-time
// setup link the server logs at start while there is none, or from `server admin users create
// --admin`.
const RegistrationModeDefault = domain.RegistrationApproval

// Registration is who may register: REGISTRATION_MODE, else the older ALLOW_REGISTRATION (true
// is open, false closed), else RegistrationModeDefault.
func (c Config) Registration() domain.RegistrationMode {
	m, _ := c.registration()
	return m
}

func (c Config) registrationErr() error {
	_, err := c.registration()
	return err
}

func (c Config) registration() (domain.RegistrationMode, error) {
	if c.RegistrationModeName != "" {
		m, err := domain.ParseRegistrationMode(c.RegistrationModeName)
		if err != nil {
			return "", fmt.Errorf("REGISTRATION_MODE: %q is not a mode (open, approval, invite or closed)", c.RegistrationModeName)
		}
		return m, nil
	}
	if c.AllowRegistration != "" {
		open, err := strconv.ParseBool(c.AllowRegistration)
		if err != nil {
			return "", fmt.Errorf("ALLOW_REGISTRATION: %q is not a boolean", c.AllowRegistration)
		}
		if open {
			return domain.RegistrationOpen, nil
		}
		return domain.RegistrationClosed, nil
	}
	return RegistrationModeDefault, nil
}
