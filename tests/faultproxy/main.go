// Command faultproxy sits between a client of the Kubernetes API (arbiter-scheduler,
// arbiter-controller, kubectl) and the local kube-apiserver, forwards every request, and injects
// the faults that a test asks for through its control endpoint: delays, dropped and reset
// connections, synthetic error answers (409, 429 with Retry-After, 500, 503...), requests
// forwarded whose answer is then dropped (an ambiguous bind), and watch streams cut inside an
// object, ended by an in-stream 410, given extra bookmarks or a malformed line.
//
// It speaks HTTP/1.1 to its clients (TLS with -tls-cert/-tls-key, else plain), passes their
// Authorization header on, and authenticates to the API server as they do, or with
// -upstream-cert/-upstream-key. What each flag and rule does: README.md.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Rule is one fault: which requests it matches, how often it fires, and what it does.
type Rule struct {
	Name   string `json:"name"`
	Method string `json:"method,omitempty"` // e.g. "POST"; empty: any
	Path   string `json:"path,omitempty"`   // a regexp on the URL path; empty: any
	Query  string `json:"query,omitempty"`  // a regexp on the raw query; empty: any
	// Watch: true matches watch requests only, false everything else; absent, both (the watch-*
	// actions imply true).
	Watch       *bool   `json:"watch,omitempty"`
	Probability float64 `json:"probability,omitempty"` // of firing on a match; 0 means 1
	Skip        int64   `json:"skip,omitempty"`        // the first Skip matches pass untouched
	Limit       int64   `json:"limit,omitempty"`       // fires at most Limit times; 0: no limit
	Action      string  `json:"action"`
	DelayMs     int64   `json:"delayMs,omitempty"`           // delay, hang, watch-delay
	Code        int     `json:"code,omitempty"`              // status
	RetryAfter  int     `json:"retryAfterSeconds,omitempty"` // status: the Retry-After header
	AfterEvents int     `json:"afterEvents,omitempty"`       // watch-*: events passed first
	MidObject   bool    `json:"midObject,omitempty"`         // watch-cut: inside the next event

	path, query *regexp.Regexp
}

var actions = map[string]string{
	"delay":          "waits delayMs, then forwards",
	"hang":           "answers nothing for delayMs (0: until the client gives up), then drops the connection",
	"close":          "drops the connection without an answer (FIN)",
	"reset":          "resets the connection without an answer (RST)",
	"status":         "answers code (a Kubernetes Status) without forwarding; Retry-After if set",
	"drop-response":  "forwards, waits for the API server's whole answer, then drops the connection",
	"watch-end":      "passes afterEvents events, then ends the stream cleanly (as a watch's timeout does)",
	"watch-cut":      "passes afterEvents events, then tears the stream (midObject: inside the next event)",
	"watch-error":    "passes afterEvents events, then ends the stream with an ERROR event, code 410",
	"watch-bookmark": "adds a BOOKMARK at the last resourceVersion after every afterEvents (>= 1) events",
	"watch-garbage":  "passes afterEvents events, then sends a malformed line and cuts the stream",
	"watch-delay":    "passes afterEvents events, then holds each later one delayMs before passing it on",
}

func (r *Rule) compile() error {
	if r.Name == "" {
		return errors.New("rule: name: missing")
	}
	if _, ok := actions[r.Action]; !ok {
		return fmt.Errorf("rule %s: action: unknown %q", r.Name, r.Action)
	}
	var err error
	if r.Path != "" {
		if r.path, err = regexp.Compile(r.Path); err != nil {
			return fmt.Errorf("rule %s: path: %v", r.Name, err)
		}
	}
	if r.Query != "" {
		if r.query, err = regexp.Compile(r.Query); err != nil {
			return fmt.Errorf("rule %s: query: %v", r.Name, err)
		}
	}
	if r.Probability < 0 || r.Probability > 1 {
		return fmt.Errorf("rule %s: probability: want 0 to 1, got %v", r.Name, r.Probability)
	}
	if r.Action == "status" && (r.Code < 400 || r.Code > 599) {
		return fmt.Errorf("rule %s: code: want an HTTP error code, got %d", r.Name, r.Code)
	}
	if r.Action == "watch-delay" && r.DelayMs < 1 {
		return fmt.Errorf("rule %s: delayMs: want at least 1 for watch-delay", r.Name)
	}
	if r.Action == "watch-bookmark" && r.AfterEvents < 1 {
		return fmt.Errorf("rule %s: afterEvents: want at least 1 for watch-bookmark", r.Name)
	}
	if strings.HasPrefix(r.Action, "watch-") {
		yes := true
		if r.Watch != nil && !*r.Watch {
			return fmt.Errorf("rule %s: watch: %s acts on watch streams only", r.Name, r.Action)
		}
		r.Watch = &yes
	}
	return nil
}

func (r *Rule) matches(req *http.Request, watch bool) bool {
	return (r.Method == "" || strings.EqualFold(r.Method, req.Method)) &&
		(r.path == nil || r.path.MatchString(req.URL.Path)) &&
		(r.query == nil || r.query.MatchString(req.URL.RawQuery)) &&
		(r.Watch == nil || *r.Watch == watch)
}

type counter struct {
	Matched  int64 `json:"matched"`
	Injected int64 `json:"injected"`
}

type proxy struct {
	upstream  *url.URL
	transport *http.Transport
	reverse   *httputil.ReverseProxy

	mu       sync.Mutex
	rules    []*Rule
	counters map[string]*counter // by rule name; kept when the rules are replaced
	random   *rand.Rand

	requests, watches atomic.Int64
	connsMu           sync.Mutex
	conns             map[net.Conn]struct{}
}

type ruleKey struct{}

// pick returns the rule that fires for this request, if any: the first, in order, that matches,
// is past its skip, below its limit, and wins its draw (a rule that does not fire lets the next
// one try).
func (p *proxy) pick(req *http.Request, watch bool) *Rule {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.rules {
		if !r.matches(req, watch) {
			continue
		}
		c := p.counters[r.Name]
		c.Matched++
		if c.Matched <= r.Skip || (r.Limit > 0 && c.Injected >= r.Limit) {
			continue
		}
		if r.Probability > 0 && r.Probability < 1 && p.random.Float64() >= r.Probability {
			continue
		}
		c.Injected++
		return r
	}
	return nil
}

func isWatch(req *http.Request) bool {
	w := req.URL.Query().Get("watch")
	return w == "true" || w == "1"
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	p.requests.Add(1)
	watch := isWatch(req)
	if watch {
		p.watches.Add(1)
	}
	rule := p.pick(req, watch)
	if rule == nil {
		p.reverse.ServeHTTP(w, req)
		return
	}
	log.Printf("rule %s: %s %s %s", rule.Name, rule.Action, req.Method, req.URL.RequestURI())
	switch rule.Action {
	case "delay":
		select {
		case <-time.After(time.Duration(rule.DelayMs) * time.Millisecond):
		case <-req.Context().Done():
			return
		}
		p.reverse.ServeHTTP(w, req)
	case "hang":
		var timeout <-chan time.Time
		if rule.DelayMs > 0 {
			timeout = time.After(time.Duration(rule.DelayMs) * time.Millisecond)
		}
		select {
		case <-timeout:
		case <-req.Context().Done():
		}
		drop(w, false)
	case "close":
		drop(w, false)
	case "reset":
		drop(w, true)
	case "status":
		writeStatus(w, rule)
	case "drop-response":
		p.forwardAndDrop(w, req)
	default: // watch-*: the stream is filtered on its way back (modifyResponse)
		p.reverse.ServeHTTP(w, req.WithContext(context.WithValue(req.Context(), ruleKey{}, rule)))
	}
}

// drop ends the client's connection without an answer: a FIN, or with reset an RST (linger 0).
// The raw TCP connection is closed, under any TLS, so that no close_notify is sent: to the client
// it is the network failing, not the server closing.
func drop(w http.ResponseWriter, reset bool) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		log.Printf("hijack: %v", err)
		return
	}
	raw := conn
	if t, ok := conn.(*tls.Conn); ok {
		raw = t.NetConn()
	}
	if tcp, ok := raw.(*net.TCPConn); ok && reset {
		_ = tcp.SetLinger(0)
	}
	_ = raw.Close()
}

var reasons = map[int]string{
	400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 409: "Conflict",
	410: "Expired", 422: "Invalid", 429: "TooManyRequests", 500: "InternalError",
	503: "ServiceUnavailable", 504: "Timeout",
}

func statusBody(code int, message string, retryAfter int) []byte {
	status := map[string]any{
		"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reasons[code], "code": code,
	}
	if retryAfter > 0 {
		status["details"] = map[string]any{"retryAfterSeconds": retryAfter}
	}
	body, _ := json.Marshal(status)
	return body
}

func writeStatus(w http.ResponseWriter, r *Rule) {
	w.Header().Set("Content-Type", "application/json")
	if r.RetryAfter > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(r.RetryAfter))
	}
	w.WriteHeader(r.Code)
	_, _ = w.Write(statusBody(r.Code, "injected by faultproxy rule "+r.Name, r.RetryAfter))
}

var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Te", "Trailer",
	"Transfer-Encoding", "Upgrade"}

// forwardAndDrop sends the request on and reads the API server's whole answer, so that whatever
// the request did is done, then drops the client's connection: the client cannot tell whether
// its request took effect.
func (p *proxy) forwardAndDrop(w http.ResponseWriter, req *http.Request) {
	out := req.Clone(req.Context())
	out.RequestURI = ""
	out.URL.Scheme = p.upstream.Scheme
	out.URL.Host = p.upstream.Host
	out.Host = p.upstream.Host
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		log.Printf("drop-response: %v", err)
	} else {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		log.Printf("drop-response: the API server answered %d; dropping it", resp.StatusCode)
	}
	drop(w, false)
}

func (p *proxy) modifyResponse(resp *http.Response) error {
	rule, _ := resp.Request.Context().Value(ruleKey{}).(*Rule)
	if rule != nil && resp.StatusCode == http.StatusOK {
		resp.Body = &watchFilter{body: resp.Body, dec: json.NewDecoder(resp.Body), rule: rule}
	}
	return nil
}

var errCut = errors.New("stream cut by faultproxy")

// watchFilter passes a watch stream (one JSON event per line) event by event, and acts on it as
// its rule says. An error from Read makes the reverse proxy abort the response: the client sees
// the chunked stream end without its last chunk, as when a connection breaks.
type watchFilter struct {
	body    io.ReadCloser
	dec     *json.Decoder
	rule    *Rule
	pending []byte
	events  int
	done    bool
	end     error
	fired   bool
	last    struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
}

func (f *watchFilter) Read(b []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.done {
			return 0, f.end
		}
		f.next()
	}
	n := copy(b, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

func (f *watchFilter) Close() error { return f.body.Close() }

func (f *watchFilter) readEvent() (json.RawMessage, error) {
	var raw json.RawMessage
	if err := f.dec.Decode(&raw); err != nil {
		return nil, err
	}
	var event struct {
		Object json.RawMessage `json:"object"`
	}
	if json.Unmarshal(raw, &event) == nil && len(event.Object) > 0 {
		_ = json.Unmarshal(event.Object, &f.last)
	}
	return raw, nil
}

func (f *watchFilter) next() {
	r := f.rule
	if f.events == r.AfterEvents && !f.fired {
		f.fired = true
		switch r.Action {
		case "watch-error":
			event, _ := json.Marshal(map[string]any{"type": "ERROR",
				"object": json.RawMessage(statusBody(410, "too old resource version (injected by faultproxy rule "+r.Name+")", 0))})
			f.pending, f.done, f.end = append(event, '\n'), true, io.EOF
			return
		case "watch-end":
			f.done, f.end = true, io.EOF
			return
		case "watch-cut":
			f.done, f.end = true, errCut
			if r.MidObject {
				if raw, err := f.readEvent(); err == nil && len(raw) > 1 {
					f.pending = raw[:len(raw)/2]
				}
			}
			return
		case "watch-garbage":
			f.pending, f.done, f.end = []byte("{\"type\":\"MODIFIED\",\"object\":{\"kind\":\n"), true, errCut
			return
		case "watch-bookmark":
			if f.last.Metadata.ResourceVersion != "" {
				object := map[string]any{"apiVersion": f.last.APIVersion, "kind": f.last.Kind,
					"metadata": map[string]any{"resourceVersion": f.last.Metadata.ResourceVersion}}
				event, _ := json.Marshal(map[string]any{"type": "BOOKMARK", "object": object})
				f.pending = append(event, '\n')
			}
			f.fired, f.events = false, 0
			return
		}
	}
	raw, err := f.readEvent()
	if err != nil {
		f.done, f.end = true, err
		return
	}
	if r.Action == "watch-delay" && f.events >= r.AfterEvents {
		// Events queue behind each other: a burst of n arrives n × delayMs late at the last.
		time.Sleep(time.Duration(r.DelayMs) * time.Millisecond)
	}
	f.events++
	f.pending = append(raw, '\n')
}

// ---- Control endpoint ---------------------------------------------------------------------------

func (p *proxy) setRules(rules []*Rule) error {
	names := map[string]bool{}
	for _, r := range rules {
		if err := r.compile(); err != nil {
			return err
		}
		if names[r.Name] {
			return fmt.Errorf("rule %s: name: used twice", r.Name)
		}
		names[r.Name] = true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range rules {
		if p.counters[r.Name] == nil {
			p.counters[r.Name] = &counter{}
		}
	}
	p.rules = rules
	return nil
}

func (p *proxy) control() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/rules", func(w http.ResponseWriter, req *http.Request) {
		switch req.Method {
		case http.MethodGet:
			p.mu.Lock()
			defer p.mu.Unlock()
			writeJSON(w, map[string]any{"rules": p.rules})
		case http.MethodPut:
			var body struct {
				Rules []*Rule `json:"rules"`
			}
			dec := json.NewDecoder(req.Body)
			dec.DisallowUnknownFields()
			if err := dec.Decode(&body); err != nil {
				http.Error(w, "rules: "+err.Error(), http.StatusBadRequest)
				return
			}
			if err := p.setRules(body.Rules); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			log.Printf("control: %d rules", len(body.Rules))
			writeJSON(w, map[string]any{"rules": len(body.Rules)})
		default:
			http.Error(w, "GET or PUT", http.StatusMethodNotAllowed)
		}
	})
	mux.HandleFunc("/stats", func(w http.ResponseWriter, _ *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.connsMu.Lock()
		open := len(p.conns)
		p.connsMu.Unlock()
		writeJSON(w, map[string]any{"requests": p.requests.Load(), "watches": p.watches.Load(),
			"connections": open, "rules": p.counters})
	})
	// Drops every open client connection (watches included): what the client sees when the
	// network between it and the API server fails.
	mux.HandleFunc("/connections/reset", func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost {
			http.Error(w, "POST", http.StatusMethodNotAllowed)
			return
		}
		p.connsMu.Lock()
		n := len(p.conns)
		for c := range p.conns {
			if t, ok := c.(*tls.Conn); ok {
				c = t.NetConn() // no close_notify: the network failing, not the server closing
			}
			_ = c.Close()
		}
		p.connsMu.Unlock()
		log.Printf("control: dropped %d connections", n)
		writeJSON(w, map[string]any{"closed": n})
	})
	return mux
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (p *proxy) connState(c net.Conn, state http.ConnState) {
	p.connsMu.Lock()
	defer p.connsMu.Unlock()
	switch state {
	case http.StateNew:
		p.conns[c] = struct{}{}
	case http.StateClosed, http.StateHijacked:
		delete(p.conns, c)
	}
}

// ---- Set-up -------------------------------------------------------------------------------------

func newProxy(upstream *url.URL, upstreamTLS *tls.Config, seed int64) *proxy {
	transport := &http.Transport{
		TLSClientConfig: upstreamTLS,
		// HTTP/1.1 upstream too: one request, one connection's worth of behaviour to reason about.
		TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{},
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
	}
	p := &proxy{upstream: upstream, transport: transport, counters: map[string]*counter{},
		random: rand.New(rand.NewSource(seed)), conns: map[net.Conn]struct{}{}}
	p.reverse = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(upstream)
			r.Out.Host = upstream.Host
		},
		Transport:      transport,
		FlushInterval:  -1, // watch events reach the client as they come
		ModifyResponse: p.modifyResponse,
		ErrorLog:       log.New(io.Discard, "", 0),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			log.Printf("upstream: %s %s: %v", r.Method, r.URL.RequestURI(), err)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write(statusBody(503, "faultproxy: the API server is unreachable: "+err.Error(), 0))
		},
	}
	return p
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address for the clients")
	control := flag.String("control", "127.0.0.1:0", "address of the control endpoint (plain HTTP)")
	upstreamURL := flag.String("upstream", "", "the API server, e.g. https://127.0.0.1:6443")
	upstreamCA := flag.String("upstream-ca", "", "CA bundle that verifies the API server")
	upstreamCert := flag.String("upstream-cert", "", "client certificate to the API server (else the client's Authorization header only)")
	upstreamKey := flag.String("upstream-key", "", "its key")
	tlsCert := flag.String("tls-cert", "", "serving certificate for the clients (else plain HTTP)")
	tlsKey := flag.String("tls-key", "", "its key")
	rulesFile := flag.String("rules", "", "initial rules, as PUT /rules takes them")
	readyFile := flag.String("ready-file", "", "written once listening: {\"listen\": ..., \"control\": ...}")
	seed := flag.Int64("seed", 1, "seed of the probability draws")
	flag.Parse()
	log.SetFlags(log.Ltime | log.Lmicroseconds)

	if err := run(*listen, *control, *upstreamURL, *upstreamCA, *upstreamCert, *upstreamKey,
		*tlsCert, *tlsKey, *rulesFile, *readyFile, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "faultproxy:", err)
		os.Exit(1)
	}
}

func run(listen, control, upstreamURL, upstreamCA, upstreamCert, upstreamKey, tlsCert, tlsKey,
	rulesFile, readyFile string, seed int64) error {
	upstream, err := url.Parse(upstreamURL)
	if err != nil || upstream.Host == "" {
		return fmt.Errorf("-upstream: want a URL such as https://127.0.0.1:6443, got %q", upstreamURL)
	}
	upstreamTLS := &tls.Config{MinVersion: tls.VersionTLS12}
	if upstreamCA != "" {
		pem, err := os.ReadFile(upstreamCA)
		if err != nil {
			return fmt.Errorf("-upstream-ca: %v", err)
		}
		upstreamTLS.RootCAs = x509.NewCertPool()
		if !upstreamTLS.RootCAs.AppendCertsFromPEM(pem) {
			return fmt.Errorf("-upstream-ca %s: no certificate in it", upstreamCA)
		}
	}
	if upstreamCert != "" {
		cert, err := tls.LoadX509KeyPair(upstreamCert, upstreamKey)
		if err != nil {
			return fmt.Errorf("-upstream-cert: %v", err)
		}
		upstreamTLS.Certificates = []tls.Certificate{cert}
	}
	p := newProxy(upstream, upstreamTLS, seed)
	if rulesFile != "" {
		data, err := os.ReadFile(rulesFile)
		if err != nil {
			return fmt.Errorf("-rules: %v", err)
		}
		var body struct {
			Rules []*Rule `json:"rules"`
		}
		if err := json.Unmarshal(data, &body); err != nil {
			return fmt.Errorf("-rules %s: %v", rulesFile, err)
		}
		if err := p.setRules(body.Rules); err != nil {
			return fmt.Errorf("-rules %s: %v", rulesFile, err)
		}
	}

	clients, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	controls, err := net.Listen("tcp", control)
	if err != nil {
		return err
	}
	server := &http.Server{Handler: p, ConnState: p.connState,
		// HTTP/1.1 only: a fault acts on one request's connection.
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){},
		ErrorLog:     log.New(io.Discard, "", 0)}
	if tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(tlsCert, tlsKey)
		if err != nil {
			return fmt.Errorf("-tls-cert: %v", err)
		}
		clients = tls.NewListener(clients, &tls.Config{Certificates: []tls.Certificate{cert},
			MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}})
	}
	if readyFile != "" {
		ready, _ := json.Marshal(map[string]string{"listen": clients.Addr().String(),
			"control": controls.Addr().String()})
		// Renamed into place: whoever polls for the file never reads half of it.
		if err := os.WriteFile(readyFile+".tmp", ready, 0o644); err != nil {
			return err
		}
		if err := os.Rename(readyFile+".tmp", readyFile); err != nil {
			return err
		}
	}
	log.Printf("forwarding %s to %s; control on %s", clients.Addr(), upstream, controls.Addr())
	go func() { _ = http.Serve(controls, p.control()) }()
	return server.Serve(clients)
}
