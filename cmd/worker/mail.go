package main

import (
	"context"
	"log/slog"

	"moviesdiary/internal/adapters/smtp"
	"moviesdiary/internal/config"
	"moviesdiary/internal/delivery"
	"moviesdiary/internal/domain"
	"moviesdiary/internal/usecase/mail"
)

// mailHandlers are the mail handlers when SMTP_HOST is set: the password reset and e-mail
// confirmation links always, the admins' notice of a registration with
// NOTIFY_ADMINS_ON_REGISTRATION. Without SMTP_HOST none is registered (said once here): the
// server then writes no link events, and UserRegistered is settled with no handler.
func mailHandlers(cfg config.Config, store store, log *slog.Logger) ([]delivery.Handler, error) {
	if !cfg.MailEnabled() {
		log.Info("SMTP_HOST is not set: no mail is sent (password reset needs the admin's CLI; e-mail changes take effect at once)")
		return nil, nil
	}
	sc := smtp.Config{Host: cfg.SMTPHost, Port: cfg.SMTPPortOrDefault(), Username: cfg.SMTPUsername, Password: cfg.SMTPPassword,
		From: cfg.SMTPFrom, TLS: cfg.SMTPTLS, InsecureSkipVerify: cfg.SMTPInsecureSkipVerify}
	if cfg.SMTPCAFile != "" {
		pool, err := smtp.LoadCAFile(cfg.SMTPCAFile)
		if err != nil {
			return nil, err
		}
		sc.RootCAs = pool
	}
	sender, err := smtp.New(sc)
	if err != nil {
		return nil, err
	}
	h, err := mail.New(store, sender, mail.Config{BaseURL: cfg.BaseURL, Log: log})
	if err != nil {
		return nil, err
	}
	hs := []delivery.Handler{mailHandler(mail.LinksName, mail.LinksTypes, h.Links)}
	if cfg.NotifyAdminsOnRegistration {
		hs = append(hs, mailHandler(mail.NoticeName, mail.NoticeTypes, h.Notice))
	}
	log.Info("mail is on", "smtp_host", cfg.SMTPHost, "smtp_port", sc.Port, "smtp_tls", cfg.SMTPTLS,
		"notify_admins_on_registration", cfg.NotifyAdminsOnRegistration)
	return hs, nil
}

// mailHandler adapts a mail handler, which needs the event id (its Message-ID derives from it)
// and the attempt, to the delivery engine.
func mailHandler(name string, types []string, handle func(context.Context, string, int, domain.Event) error) delivery.Handler {
	return delivery.Handler{Name: name, Types: types, Handle: func(ctx context.Context, e delivery.Envelope) error {
		return handle(ctx, e.EventID, e.Attempt, e.Event)
	}}
}
