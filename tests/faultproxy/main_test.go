package main

// The proxy's own tests: a stand-in upstream (httptest) that answers plain requests and streams
// watch events, the proxy in front of it, and a client that checks what each rule does.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

type upstream struct {
	server *httptest.Server
	hits   atomic.Int64 // requests that reached it
}

// newUpstream answers GET/POST with {"ok":true} and a watch with `events` ADDED events (rv 1..n),
// then holds the stream open until the client leaves.
func newUpstream(t *testing.T, events int) *upstream {
	u := &upstream{}
	u.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.hits.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		if !isWatch(r) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"ok":true}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		for i := 1; i <= events; i++ {
			fmt.Fprintf(w, `{"type":"ADDED","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p%d","resourceVersion":"%d"}}}`+"\n", i, i)
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	}))
	t.Cleanup(u.server.Close)
	return u
}

func startProxy(t *testing.T, up *upstream, rules ...*Rule) (*proxy, *httptest.Server) {
	t.Helper()
	target, _ := url.Parse(up.server.URL)
	p := newProxy(target, nil, 1)
	if err := p.setRules(rules); err != nil {
		t.Fatal(err)
	}
	front := httptest.NewUnstartedServer(p)
	front.Config.ConnState = p.connState
	front.Start()
	t.Cleanup(front.Close)
	return p, front
}

// readEvents reads watch events until the stream ends, and returns them with how it ended.
func readEvents(t *testing.T, resp *http.Response) ([]map[string]any, error) {
	t.Helper()
	var events []map[string]any
	scanner := bufio.NewScanner(resp.Body)
	for scanner.Scan() {
		var e map[string]any
		if err := json.Unmarshal(scanner.Bytes(), &e); err != nil {
			return events, fmt.Errorf("malformed event %q: %w", scanner.Text(), err)
		}
		events = append(events, e)
	}
	return events, scanner.Err()
}

func watch(t *testing.T, front *httptest.Server, timeout time.Duration) *http.Response {
	t.Helper()
	client := &http.Client{Timeout: timeout}
	resp, err := client.Get(front.URL + "/api/v1/pods?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestForwardsUntouchedWithoutRules(t *testing.T) {
	up := newUpstream(t, 0)
	_, front := startProxy(t, up)
	resp, err := http.Get(front.URL + "/api/v1/pods")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != `{"ok":true}` {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}
}

func TestStatusAnswersWithoutForwardingAndSaysRetryAfter(t *testing.T) {
	up := newUpstream(t, 0)
	_, front := startProxy(t, up, &Rule{Name: "throttle", Action: "status", Code: 429, RetryAfter: 2})
	resp, err := http.Get(front.URL + "/api/v1/pods")
	if err != nil {
		t.Fatal(err)
	}
	var status map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&status)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" ||
		status["reason"] != "TooManyRequests" || status["kind"] != "Status" {
		t.Fatalf("got %d, Retry-After %q, %v", resp.StatusCode, resp.Header.Get("Retry-After"), status)
	}
	if up.hits.Load() != 0 {
		t.Fatalf("the upstream saw %d requests, want 0", up.hits.Load())
	}
}

func TestDropResponseForwardsThenDropsTheAnswer(t *testing.T) {
	up := newUpstream(t, 0)
	_, front := startProxy(t, up, &Rule{Name: "ambiguous", Method: "POST",
		Path: "/binding$", Action: "drop-response"})
	_, err := http.Post(front.URL+"/api/v1/namespaces/a/pods/p/binding", "application/json",
		strings.NewReader(`{}`))
	if err == nil {
		t.Fatal("the client got an answer")
	}
	if up.hits.Load() != 1 {
		t.Fatalf("the upstream saw %d requests, want 1", up.hits.Load())
	}
	// Another path is untouched.
	if resp, err := http.Get(front.URL + "/api/v1/pods"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET: %v", err)
	}
}

func TestResetAndCloseGiveNoAnswer(t *testing.T) {
	for _, action := range []string{"reset", "close"} {
		up := newUpstream(t, 0)
		_, front := startProxy(t, up, &Rule{Name: action, Action: action})
		if _, err := http.Get(front.URL + "/api/v1/pods"); err == nil {
			t.Fatalf("%s: the client got an answer", action)
		}
		if up.hits.Load() != 0 {
			t.Fatalf("%s: the upstream saw the request", action)
		}
	}
}

func TestSkipLimitAndCounters(t *testing.T) {
	up := newUpstream(t, 0)
	p, front := startProxy(t, up, &Rule{Name: "503", Action: "status", Code: 503, Skip: 1, Limit: 2})
	var codes []int
	for i := 0; i < 5; i++ {
		resp, err := http.Get(front.URL + "/api/v1/nodes")
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, resp.StatusCode)
		resp.Body.Close()
	}
	if fmt.Sprint(codes) != "[200 503 503 200 200]" {
		t.Fatalf("codes %v, want [200 503 503 200 200]", codes)
	}
	if c := p.counters["503"]; c.Matched != 5 || c.Injected != 2 {
		t.Fatalf("counters %+v, want matched 5, injected 2", *c)
	}
}

func TestARuleThatDoesNotFireLetsTheNextTry(t *testing.T) {
	up := newUpstream(t, 0)
	p, front := startProxy(t, up,
		&Rule{Name: "first", Action: "status", Code: 409, Limit: 1},
		&Rule{Name: "second", Action: "status", Code: 500})
	var codes []int
	for i := 0; i < 3; i++ {
		resp, err := http.Get(front.URL + "/x")
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, resp.StatusCode)
		resp.Body.Close()
	}
	if fmt.Sprint(codes) != "[409 500 500]" || p.counters["second"].Injected != 2 {
		t.Fatalf("codes %v, want [409 500 500]", codes)
	}
}

func TestProbabilityIsRoughlyHonoured(t *testing.T) {
	up := newUpstream(t, 0)
	p, front := startProxy(t, up, &Rule{Name: "some", Action: "status", Code: 500, Probability: 0.1})
	for i := 0; i < 400; i++ {
		resp, err := http.Get(front.URL + "/x")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if n := p.counters["some"].Injected; n < 20 || n > 65 {
		t.Fatalf("injected %d of 400 at probability 0.1", n)
	}
}

func TestWatchErrorEndsTheStreamWith410AfterTheEvents(t *testing.T) {
	up := newUpstream(t, 3)
	_, front := startProxy(t, up, &Rule{Name: "gone", Action: "watch-error", AfterEvents: 2})
	events, err := readEvents(t, watch(t, front, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 3 || events[2]["type"] != "ERROR" {
		t.Fatalf("events %v, want 2 ADDED then ERROR", events)
	}
	if code := events[2]["object"].(map[string]any)["code"]; code != float64(410) {
		t.Fatalf("ERROR code %v, want 410", code)
	}
}

func TestWatchCutInsideAnObject(t *testing.T) {
	up := newUpstream(t, 3)
	_, front := startProxy(t, up, &Rule{Name: "cut", Action: "watch-cut", AfterEvents: 1, MidObject: true})
	events, err := readEvents(t, watch(t, front, 10*time.Second))
	if len(events) != 1 || err == nil {
		t.Fatalf("events %v, end %v: want 1 event, then a torn stream", events, err)
	}
}

func TestWatchEndIsACleanEndOfStream(t *testing.T) {
	up := newUpstream(t, 3)
	_, front := startProxy(t, up, &Rule{Name: "end", Action: "watch-end", AfterEvents: 2})
	events, err := readEvents(t, watch(t, front, 10*time.Second))
	if len(events) != 2 || err != nil {
		t.Fatalf("events %v, end %v: want 2 events, then a clean end", events, err)
	}
}

func TestWatchDelayHoldsEachEventAfterTheFirstOnes(t *testing.T) {
	up := newUpstream(t, 3)
	_, front := startProxy(t, up, &Rule{Name: "slow", Action: "watch-delay", AfterEvents: 1, DelayMs: 300})
	start := time.Now()
	resp := watch(t, front, 10*time.Second)
	scanner := bufio.NewScanner(resp.Body)
	var at []time.Duration
	for len(at) < 3 && scanner.Scan() {
		at = append(at, time.Since(start))
	}
	if len(at) != 3 {
		t.Fatalf("got %d events, want 3 (%v)", len(at), scanner.Err())
	}
	// The upstream sends all three at once: the first passes, the next two wait 300 ms each.
	if at[0] >= 300*time.Millisecond || at[1] < 300*time.Millisecond || at[2] < 600*time.Millisecond {
		t.Fatalf("events at %v, want the first before 300 ms, then after 300 ms and 600 ms", at)
	}
}

func TestWatchBookmarksAtTheLastResourceVersion(t *testing.T) {
	up := newUpstream(t, 4)
	_, front := startProxy(t, up, &Rule{Name: "bm", Action: "watch-bookmark", AfterEvents: 2})
	resp := watch(t, front, 10*time.Second)
	scanner := bufio.NewScanner(resp.Body)
	var types []string
	for len(types) < 6 && scanner.Scan() {
		var e struct {
			Type   string `json:"type"`
			Object struct {
				Metadata struct {
					ResourceVersion string `json:"resourceVersion"`
				} `json:"metadata"`
			} `json:"object"`
		}
		if err := json.Unmarshal(scanner.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		types = append(types, e.Type+":"+e.Object.Metadata.ResourceVersion)
	}
	want := "[ADDED:1 ADDED:2 BOOKMARK:2 ADDED:3 ADDED:4 BOOKMARK:4]"
	if fmt.Sprint(types) != want {
		t.Fatalf("got %v, want %s", types, want)
	}
}

func TestWatchGarbageIsAMalformedLine(t *testing.T) {
	up := newUpstream(t, 2)
	_, front := startProxy(t, up, &Rule{Name: "junk", Action: "watch-garbage", AfterEvents: 1})
	events, err := readEvents(t, watch(t, front, 10*time.Second))
	if len(events) != 1 || err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Fatalf("events %v, end %v: want 1 event, then a malformed line", events, err)
	}
}

func TestResetConnectionsEndsOpenWatches(t *testing.T) {
	up := newUpstream(t, 1)
	p, front := startProxy(t, up)
	resp := watch(t, front, 10*time.Second)
	reader := bufio.NewReader(resp.Body)
	if _, err := reader.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	control := httptest.NewServer(p.control())
	defer control.Close()
	r, err := http.Post(control.URL+"/connections/reset", "", nil)
	if err != nil || r.StatusCode != 200 {
		t.Fatalf("reset: %v", err)
	}
	if _, err := reader.ReadString('\n'); err == nil {
		t.Fatal("the watch went on after its connection was dropped")
	}
}

func TestBadRulesAreRefusedNamingTheField(t *testing.T) {
	for _, c := range []struct {
		rule Rule
		want string
	}{
		{Rule{Action: "delay"}, "name: missing"},
		{Rule{Name: "a", Action: "explode"}, `action: unknown "explode"`},
		{Rule{Name: "a", Action: "status", Code: 200}, "code: want an HTTP error code"},
		{Rule{Name: "a", Action: "delay", Path: "("}, "path:"},
		{Rule{Name: "a", Action: "delay", Probability: 2}, "probability"},
		{Rule{Name: "a", Action: "watch-bookmark"}, "afterEvents"},
	} {
		r := c.rule
		if err := r.compile(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.rule, err, c.want)
		}
	}
}
