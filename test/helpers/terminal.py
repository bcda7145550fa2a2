"""Runs a command in a real pseudo-terminal (not named pty.py: it would hide the pty module) of a given size, typing input at given times.

For the terminal tests (test/helpers/pty.ts): stdin, stdout and stderr are all the terminal, as in
a person's shell. Reads one JSON object on stdin:
  {"argv": [...], "env": {...}, "rows": 24, "cols": 80, "input": [[after_seconds, text], ...],
   "wait_for": "text to see before the input clock starts",
   "start_file": "a file whose coming into being starts the input clock", "timeout": 20}
Prints {"status": exit code (or -signal), "output": everything the terminal received, as latin-1}.
"""
import fcntl, json, os, pty, select, struct, sys, termios, time

cfg = json.load(sys.stdin)
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", cfg.get("rows", 24), cfg.get("cols", 80), 0, 0))
    os.execvpe(cfg["argv"][0], cfg["argv"], cfg["env"])

output = b""
pending = list(cfg.get("input", []))
start = time.time()
clock = None if cfg.get("wait_for") or cfg.get("start_file") else start
deadline = start + cfg.get("timeout", 20)
status = None
while time.time() < deadline:
    if clock is None and (
        cfg["wait_for"].encode() in output if cfg.get("wait_for") else os.path.exists(cfg["start_file"])
    ):
        clock = time.time()
    while clock is not None and pending and time.time() - clock >= pending[0][0]:
        os.write(fd, pending.pop(0)[1].encode())
    ready, _, _ = select.select([fd], [], [], 0.02)
    if ready:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            break
        output += chunk
        if len(output) > 5_000_000:
            break
    done, code = os.waitpid(pid, os.WNOHANG)
    if done:
        status = code
        # drain what is left
        while True:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                break
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
        break
if status is None:
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass
    _, status = os.waitpid(pid, 0)
code = os.waitstatus_to_exitcode(status)
print(json.dumps({"status": code, "output": output.decode("latin-1")}))
