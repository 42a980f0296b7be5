package remote

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/atomicfile"
)

// The self-signed certificate of remote access beyond loopback, made once
// and kept in the configuration directory (the key readable by the user
// only).
const (
	CertFile = "remote-cert.pem"
	KeyFile  = "remote-key.pem"
)

const certLifetime = 10 * 365 * 24 * time.Hour

// Certificate loads the certificate kept in dir, or makes one (for this
// machine's names and addresses and host) when there is none or it has
// expired. It returns the certificate and its SHA-256 fingerprint, which a
// browser shows for the certificate it was given.
func Certificate(dir, host string) (tls.Certificate, string, error) {
	certPath, keyPath := filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile)
	cert, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err == nil && cert.Leaf != nil && time.Now().Before(cert.Leaf.NotAfter) {
		return cert, Fingerprint(cert.Certificate[0]), nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return tls.Certificate{}, "", fmt.Errorf("read the certificate in %s: %w", dir, err)
	}
	if err := makeCertificate(certPath, keyPath, host); err != nil {
		return tls.Certificate{}, "", err
	}
	cert, err = tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		return tls.Certificate{}, "", fmt.Errorf("read the new certificate: %w", err)
	}
	return cert, Fingerprint(cert.Certificate[0]), nil
}

// Fingerprint is the SHA-256 digest of a DER certificate as browsers show
// it: upper-case hex pairs joined by colons.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(parts, ":")
}

func makeCertificate(certPath, keyPath, host string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("make a key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return fmt.Errorf("make a serial number: %w", err)
	}
	names, ips := certificateNames(host)
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "Baton remote access", Organization: []string{"Baton"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certLifetime),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              names,
		IPAddresses:           ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return fmt.Errorf("make the certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("encode the key: %w", err)
	}
	if err := atomicfile.Write(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return fmt.Errorf("keep the key: %w", err)
	}
	if err := atomicfile.Write(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return fmt.Errorf("keep the certificate: %w", err)
	}
	return nil
}

// certificateNames are the names and addresses the certificate is for:
// host, localhost, this machine's name, and the addresses of its
// interfaces.
func certificateNames(host string) ([]string, []net.IP) {
	names := []string{"localhost"}
	ips := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	add := func(h string) {
		if h == "" {
			return
		}
		if ip := net.ParseIP(h); ip != nil {
			if !ip.IsUnspecified() {
				for _, have := range ips {
					if have.Equal(ip) {
						return
					}
				}
				ips = append(ips, ip)
			}
			return
		}
		for _, have := range names {
			if strings.EqualFold(have, h) {
				return
			}
		}
		names = append(names, h)
	}
	add(host)
	if h, err := os.Hostname(); err == nil {
		add(h)
	}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				add(n.IP.String())
			}
		}
	}
	return names, ips
}
