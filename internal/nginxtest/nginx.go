//go:build unix

package nginxtest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Nginx is an nginx master process (and its workers) that this package
// started, in the foreground (daemon off), in a process group of its own.
type Nginx struct {
	H2URL string // https://127.0.0.1:PORT/v1: TLS, HTTP/2 or HTTP/1.1 by ALPN
	H1URL string // https://127.0.0.1:PORT/v1: TLS, HTTP/1.1 only

	dir  string
	cmd  *exec.Cmd
	done chan struct{} // closed once the master has exited
	err  error         // the master's exit, once done is closed
}

// Proxy is how Start configures nginx.
type Proxy struct {
	Certs             string // the directory WriteCerts wrote into
	Upstream          string // host:port of the server behind nginx (plain HTTP)
	KeepaliveRequests int    // requests per client connection before nginx rotates it
	Workers           int    // worker processes
}

// The files nginx writes in its directory.
const (
	ErrorLog  = "error.log"
	AccessLog = "access.log" // one request a line, as accessFormat says
)

// accessFormat is the form of an AccessLog line: the worker's pid, the
// client connection's serial number, the number of the request on that
// connection, the server port, the protocol, the status and the User-Agent
// (quoted). Connections reads it.
const accessFormat = `$pid $connection $connection_requests $server_port $server_protocol $status "$http_user_agent"`

// Start writes nginx.conf into dir and starts
// nginx with dir as its prefix, then waits until both ports accept
// connections. The caller must Stop it.
func Start(dir string, p Proxy) (*Nginx, error) {
	bin, err := exec.LookPath("nginx")
	if err != nil {
		// Debian installs it in /usr/sbin, which a user's PATH may lack.
		if _, serr := os.Stat("/usr/sbin/nginx"); serr != nil {
			return nil, err
		}
		bin = "/usr/sbin/nginx"
	}
	// The ports are found free and then handed to nginx, so another process
	// may take one in between: then nginx exits at once, and Start tries
	// again with new ports, a few times.
	for try := 0; ; try++ {
		n, err := start(bin, dir, p)
		if err == nil || try == 2 || !errors.Is(err, errExited) {
			return n, err
		}
	}
}

var errExited = errors.New("nginx exited")

func start(bin, dir string, p Proxy) (*Nginx, error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(config(ports, p)), 0o600); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "tmp"), 0o700); err != nil {
		return nil, err
	}
	// -p and -c: the prefix and the configuration; -e: the error log before
	// the configuration is read (Debian's default is stderr).
	cmd := exec.Command(bin, "-p", dir+"/", "-c", conf, "-e", filepath.Join(dir, ErrorLog))
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = childAttr() // its own process group, so that Stop can end the workers too
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	n := &Nginx{
		H2URL: fmt.Sprintf("https://127.0.0.1:%d/v1", ports[0]),
		H1URL: fmt.Sprintf("https://127.0.0.1:%d/v1", ports[1]),
		dir:   dir,
		cmd:   cmd,
		done:  make(chan struct{}),
	}
	go func() {
		n.err = cmd.Wait()
		close(n.done)
	}()
	for _, port := range ports {
		if err := n.waitListening(port); err != nil {
			n.Stop()
			return nil, fmt.Errorf("%w\n%s%s", err, out.String(), n.LogTail(20))
		}
	}
	return n, nil
}

// config returns nginx.conf: TLS on both ports, HTTP/2 on the first (nginx
// 1.22, Debian 12's, takes "http2" on listen; "http2 on" came in 1.25.1),
// proxying everything to p.Upstream with nginx's defaults otherwise.
// Temporary files stay under the prefix (Debian's defaults are in
// /var/lib/nginx), and a response is never buffered to disk, so workers
// that run as nobody (when the test runs as root) need no access to it.
func config(ports []int, p Proxy) string {
	workers := p.Workers
	if workers < 1 {
		workers = 1
	}
	return fmt.Sprintf(`daemon off;
master_process on;
worker_processes %d;
pid nginx.pid;
error_log %s info;
events {
	worker_connections 1024;
}
http {
	log_format counts '%s';
	access_log %s counts;
	client_body_temp_path tmp/body;
	proxy_temp_path tmp/proxy;
	fastcgi_temp_path tmp/fastcgi;
	uwsgi_temp_path tmp/uwsgi;
	scgi_temp_path tmp/scgi;
	server {
		listen 127.0.0.1:%d ssl http2;
		listen 127.0.0.1:%d ssl;
		ssl_certificate %s;
		ssl_certificate_key %s;
		keepalive_requests %d;
		location / {
			proxy_pass http://%s;
			proxy_max_temp_file_size 0;
		}
	}
}
`, workers, ErrorLog, accessFormat, AccessLog, ports[0], ports[1],
		filepath.Join(p.Certs, certFile), filepath.Join(p.Certs, keyFile), p.KeepaliveRequests, p.Upstream)
}

// freePorts returns n loopback TCP ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// waitListening waits until nginx accepts connections on port. nginx is
// another program and says nothing when it is ready (with daemon off, its
// pid file appears after the sockets are bound, which is no better), so
// this polls: a connection attempt every 20 ms, at most 500 of them, ending
// at once if nginx exits. The bound guards against a hang; a healthy nginx
// listens within a few attempts.
func (n *Nginx) waitListening(port int) error {
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for range 500 {
		select {
		case <-n.done:
			return fmt.Errorf("%w before listening on %s: %v", errExited, addr, n.err)
		default:
		}
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-n.done:
		case <-time.After(20 * time.Millisecond):
		}
	}
	return fmt.Errorf("nginx is not listening on %s after 500 attempts", addr)
}

// Reload asks nginx to reload its configuration (SIGHUP to the master, as
// nginx -s reload does): new workers start, and the old ones finish their
// requests and close their client connections, with a GOAWAY on HTTP/2.
func (n *Nginx) Reload() error {
	return n.cmd.Process.Signal(syscall.SIGHUP)
}

// Stop stops nginx (SIGTERM to the master, as nginx -s stop does) and waits
// for the master to exit, then kills whatever is left of its process group.
// It is safe to call more than once.
func (n *Nginx) Stop() {
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.done:
	case <-time.After(10 * time.Second): // a guard against a hang, not a timing expectation
		_ = n.cmd.Process.Kill()
		<-n.done
	}
	// The group's id is the master's pid; once the master has exited, only
	// a worker it left behind can still hold it.
	_ = syscall.Kill(-n.cmd.Process.Pid, syscall.SIGKILL)
}

// LogTail returns the last lines of nginx's error log, for a failure
// message.
func (n *Nginx) LogTail(lines int) string {
	data, err := os.ReadFile(filepath.Join(n.dir, ErrorLog))
	if err != nil {
		return fmt.Sprintf("(nginx error log: %v)\n", err)
	}
	all := strings.SplitAfter(string(data), "\n")
	if len(all) > lines+1 {
		all = all[len(all)-lines-1:]
	}
	return "nginx error log, last lines:\n" + strings.Join(all, "")
}

// Reloads returns how many reloads nginx's error log records.
func (n *Nginx) Reloads() (int, error) {
	data, err := os.ReadFile(filepath.Join(n.dir, ErrorLog))
	if err != nil {
		return 0, err
	}
	return strings.Count(string(data), "(SIGHUP) received"), nil
}

// Traffic is what nginx's access log shows of the requests whose User-Agent
// starts with a given word.
type Traffic struct {
	Requests    int            // requests nginx answered
	Connections int            // client connections they came on
	MaxPerConn  int            // the most requests on one connection
	Protocols   map[string]int // requests by protocol, "HTTP/2.0" or "HTTP/1.1"
	Statuses    map[string]int // requests by the status nginx sent
}

// Traffic reads nginx's access log for the requests whose User-Agent's
// first word is uaWord.
func (n *Nginx) Traffic(uaWord string) (Traffic, error) {
	data, err := os.ReadFile(filepath.Join(n.dir, AccessLog))
	if err != nil {
		return Traffic{}, err
	}
	t := Traffic{Protocols: map[string]int{}, Statuses: map[string]int{}}
	conns := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		head, ua, ok := strings.Cut(line, ` "`)
		if word, _, _ := strings.Cut(strings.TrimSuffix(ua, `"`), " "); !ok || word != uaWord {
			continue
		}
		f := strings.Fields(head) // pid, connection, request number, port, protocol, status
		if len(f) != 6 {
			return Traffic{}, fmt.Errorf("access log line %q: want 6 fields before the User-Agent", line)
		}
		nreq, err := strconv.Atoi(f[2])
		if err != nil {
			return Traffic{}, fmt.Errorf("access log line %q: %v", line, err)
		}
		t.Requests++
		conns[f[0]+" "+f[1]] = true
		t.MaxPerConn = max(t.MaxPerConn, nreq)
		t.Protocols[f[4]]++
		t.Statuses[f[5]]++
	}
	t.Connections = len(conns)
	return t, nil
}
