// Package smtptest runs a real SMTP server for tests (github.com/emersion/go-smtp): STARTTLS or
// implicit TLS with a self-signed certificate made at start, AUTH PLAIN, the messages it accepted
// kept for the test to read, and switches that make it refuse (a 4xx or 5xx reply) or go down and
// come back on the same address.
package smtptest

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/mail"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// The credentials the server accepts.
const (
	Username = "moviesdiary"
	Password = "smtp-test-password"
)

// Message is one accepted message: its envelope and its bytes as received.
type Message struct {
	From string
	To   []string
	Data []byte
	// TLS is true when it came over an encrypted connection; Authenticated when after AUTH.
	TLS, Authenticated bool
}

// Parsed is the message parsed as RFC 5322 (the test fails on a malformed one).
func (m Message) Parsed(t testing.TB) *mail.Message {
	t.Helper()
	p, err := mail.ReadMessage(bytes.NewReader(m.Data))
	if err != nil {
		t.Fatalf("the server received a malformed message: %v\n%s", err, m.Data)
	}
	return p
}

// Server is a running SMTP server.
type Server struct {
	// Addr is host:port; CertPEM the self-signed certificate to trust (PEM).
	Addr    string
	CertPEM []byte
	// Implicit is true for implicit TLS (SMTPS), false for STARTTLS.
	Implicit bool

	t       testing.TB
	tlsConf *tls.Config

	mu       sync.Mutex
	srv      *smtp.Server
	listener net.Listener  // srv's, closed by Down
	served   chan struct{} // closed when srv's Serve has returned
	msgs     []Message
	refusal  *smtp.SMTPError
	arrived  chan struct{}
	sessions int
}

// Options shape the server.
type Options struct {
	// Implicit serves TLS from the first byte (SMTP_TLS=tls) instead of STARTTLS.
	Implicit bool
}

// Start runs a server on a free loopback port until the test ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	cert, certPEM := selfSigned(t)
	s := &Server{t: t, CertPEM: certPEM, Implicit: o.Implicit, arrived: make(chan struct{}, 1024),
		tlsConf: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = l.Addr().String()
	s.serve(l)
	t.Cleanup(func() { s.Down() })
	return s
}

// Host is Addr's host.
func (s *Server) Host() string { h, _, _ := net.SplitHostPort(s.Addr); return h }

// Port is Addr's port.
func (s *Server) Port() int {
	_, p, _ := net.SplitHostPort(s.Addr)
	n, _ := strconv.Atoi(p)
	return n
}

// CAPool is a pool that trusts the server's certificate.
func (s *Server) CAPool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AppendCertsFromPEM(s.CertPEM)
	return p
}

func (s *Server) serve(l net.Listener) {
	srv := smtp.NewServer(backend{s})
	srv.Domain = "smtp.test"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.MaxMessageBytes = 1 << 20
	srv.TLSConfig = s.tlsConf
	if s.Implicit {
		l = tls.NewListener(l, s.tlsConf)
	}
	served := make(chan struct{})
	s.mu.Lock()
	s.srv, s.listener, s.served = srv, l, served
	s.mu.Unlock()
	go func() {
		defer close(served)
		_ = srv.Serve(l)
	}()
}

// Down stops the server: connections are refused until Up.
func (s *Server) Down() {
	s.mu.Lock()
	srv, l, served := s.srv, s.listener, s.served
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		// Serve returns once its listener is closed; only then the shutdown closes the
		// connections. go-smtp's Shutdown, closing the listener itself, raced with Serve's
		// return (the race detector caught it in cmd/worker's outage test).
		_ = l.Close()
		<-served
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			_ = srv.Close()
		}
	}
}

// Up starts the server again on the same address.
func (s *Server) Up() {
	s.t.Helper()
	var (
		l   net.Listener
		err error
	)
	// The port was just released; another process may hold it for a moment.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if l, err = net.Listen("tcp", s.Addr); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		s.t.Fatalf("smtptest: listen again on %s: %v", s.Addr, err)
	}
	s.serve(l)
}

// Refuse makes the server answer every MAIL FROM with code (421, 451, 550, …) until Accept.
func (s *Server) Refuse(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refusal = &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCodeNotSet, Message: "Refused by the test"}
}

// Accept makes the server take messages again.
func (s *Server) Accept() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refusal = nil
}

// Messages are the accepted messages so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// Sessions is how many connections reached the SMTP dialogue (the refused ones included).
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions
}

// Wait returns once n messages arrived, failing the test at timeout.
func (s *Server) Wait(t testing.TB, n int, timeout time.Duration) []Message {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		if got := s.Messages(); len(got) >= n {
			return got
		}
		select {
		case <-s.arrived:
		case <-deadline.C:
			t.Fatalf("smtptest: %d messages after %s, want %d", len(s.Messages()), timeout, n)
		}
	}
}

type backend struct{ s *Server }

func (b backend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	b.s.mu.Lock()
	b.s.sessions++
	b.s.mu.Unlock()
	_, tlsOn := c.TLSConnectionState()
	return &session{s: b.s, conn: c, tls: tlsOn}, nil
}

type session struct {
	s    *Server
	conn *smtp.Conn
	tls  bool
	auth bool
	from string
	to   []string
}

func (x *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (x *session) Auth(mech string) (sasl.Server, error) {
	if mech != sasl.Plain {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if username != Username || password != Password {
			return errors.New("invalid credentials")
		}
		x.auth = true
		return nil
	}), nil
}

func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	x.s.mu.Lock()
	refusal := x.s.refusal
	x.s.mu.Unlock()
	if refusal != nil {
		return refusal
	}
	if !x.auth {
		return smtp.ErrAuthRequired
	}
	x.from = from
	return nil
}

func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.to = append(x.to, to)
	return nil
}

func (x *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, tlsOn := x.conn.TLSConnectionState()
	x.s.mu.Lock()
	x.s.msgs = append(x.s.msgs, Message{From: x.from, To: append([]string(nil), x.to...), Data: b, TLS: tlsOn || x.tls,
		Authenticated: x.auth})
	x.s.mu.Unlock()
	x.s.arrived <- struct{}{}
	return nil
}

func (x *session) Reset() { x.from, x.to = "", nil }

func (x *session) Logout() error { return nil }

// selfSigned makes a certificate for 127.0.0.1 and localhost, valid for a day.
func selfSigned(t testing.TB) (tls.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "smtptest"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	cert, err := tls.X509KeyPair(certPEM, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	if err != nil {
		t.Fatal(err)
	}
	return cert, certPEM
}
