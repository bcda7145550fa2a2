"""Runs a command in a real pseudo-terminal (not named pty.py: it would hide the pty module) of a given size, typing what it is told.

For the terminal tests (test/helpers/pty.ts): stdin, stdout and stderr are all the terminal, as in
a person's shell. Reads JSON lines on stdin: first the run,
  {"argv": [...], "env": {...}, "rows": 24, "cols": 80, "timeout": 20}
then, at any time, a JSON string to type on the terminal, or {"resize": [rows, cols]} to resize it (the program gets SIGWINCH). Writes JSON lines on stdout: {"out": what
the terminal received, as latin-1} as it comes, so that the test can act on it (type a key, answer a
request), then {"status": exit code (or -signal)} at the end. Each "out", and each change between
them, carries the state a person cannot see but a test must wait for: "echo" (whether the terminal
echoes what is typed: false at a hidden prompt) and "catches_sigint" (whether the program has taken
SIGINT, so that a Ctrl-C reaches its handler), null where it cannot be read.
"""
import fcntl, json, os, pty, select, struct, sys, termios, time

pending = b""


def lines_from_stdin():
    """The complete lines that have come on stdin, or None at its end."""
    global pending
    chunk = os.read(0, 65536)
    if not chunk:
        return None
    pending += chunk
    *lines, pending = pending.split(b"\n")
    return [line for line in lines if line]


def emit(**message):
    os.write(1, (json.dumps(message) + "\n").encode())


lines = []
while not lines:
    got = lines_from_stdin()
    if got is None:
        sys.exit("terminal.py: no run on stdin")
    lines += got
cfg = json.loads(lines.pop(0))

pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", cfg.get("rows", 24), cfg.get("cols", 80), 0, 0))
    os.execvpe(cfg["argv"][0], cfg["argv"], cfg["env"])



def state():
    try:
        echo = bool(termios.tcgetattr(fd)[3] & termios.ECHO)
    except termios.error:
        echo = None
    return {"echo": echo}


def act(line):
    """Types a JSON string on the terminal, or resizes it ({"resize": [rows, cols]}: the kernel sends the program SIGWINCH)."""
    message = json.loads(line)
    if isinstance(message, dict):
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", *message["resize"], 0, 0))
    else:
        os.write(fd, message.encode())


for line in lines:
    act(line)
last_state = None
deadline = time.time() + cfg.get("timeout", 20)
stdin_open = True
received = 0
status = None
while time.time() < deadline:
    ready, _, _ = select.select([fd, 0] if stdin_open else [fd], [], [], 0.05)
    if 0 in ready:
        got = lines_from_stdin()
        if got is None:
            stdin_open = False
        else:
            for line in got:
                act(line)
    if fd in ready:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            break
        last_state = state()
        emit(out=chunk.decode("latin-1"), **last_state)
        received += len(chunk)
        if received > 5_000_000:
            break
    now = state()
    if now != last_state:
        last_state = now
        emit(**now)
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
            emit(out=chunk.decode("latin-1"))
        break
if status is None:
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass
    _, status = os.waitpid(pid, 0)
emit(status=os.waitstatus_to_exitcode(status))
