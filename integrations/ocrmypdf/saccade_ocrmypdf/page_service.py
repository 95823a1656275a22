"""The Saccade page service as seen from an OCRmyPDF worker.

One long-lived ``node out/main/page-service.js`` per worker (per process and thread, since OCRmyPDF runs its
workers as either), started on the worker's first page, so the model is loaded once per worker and not once
per page. Requests and replies are JSON lines over the child's standard input and output, which no other
program can reach. A page that takes longer than the timeout stops the service (the next page starts a new
one); a page the service cannot read is answered with an error and the service goes on.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import subprocess
import threading
from pathlib import Path

_services: dict[tuple[int, int], PageService] = {}
_services_lock = threading.Lock()


class PageServiceError(Exception):
    """A page the service did not read; the message is one line for the user."""


class PageService:
    def __init__(self, command: list[str], timeout: float):
        self.command = command
        self.timeout = timeout
        self._next_id = 0
        # The service's own messages (the backend it chose, a failure to load) are kept for error messages
        # instead of being interleaved with OCRmyPDF's progress display.
        self._stderr: collections.deque[str] = collections.deque(maxlen=20)
        self._replies: queue.Queue[str | None] = queue.Queue()
        try:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding='utf-8',
                bufsize=1,
            )
        except OSError as e:
            raise PageServiceError(f'Saccade could not be started ({command[0]}: {e.strerror})') from e
        threading.Thread(target=self._pump_replies, daemon=True).start()
        threading.Thread(target=self._pump_stderr, daemon=True).start()
        ready = self._reply('loading the model')
        if not ready.get('ready'):
            self.close()
            raise PageServiceError(f'Saccade did not start: {ready}')

    def _pump_replies(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            self._replies.put(line)
        self._replies.put(None)

    def _pump_stderr(self) -> None:
        assert self._process.stderr is not None
        for line in self._process.stderr:
            self._stderr.append(line.rstrip())

    def _reply(self, doing: str) -> dict:
        try:
            line = self._replies.get(timeout=self.timeout)
        except queue.Empty:
            self.close()
            raise PageServiceError(f'Saccade took more than {self.timeout:g} s {doing}') from None
        if line is None:
            self._process.wait()
            said = self._stderr[-1] if self._stderr else f'exit status {self._process.returncode}'
            raise PageServiceError(f'Saccade stopped while {doing}: {said}')
        return json.loads(line)

    @property
    def alive(self) -> bool:
        return self._process.poll() is None

    def read_page(self, image: Path, hocr: Path, text: Path) -> int:
        """Writes the page's hOCR and text; returns the number of words read."""
        self._next_id += 1
        request = {'id': self._next_id, 'image': str(image.resolve()), 'hocr': str(hocr.resolve()), 'text': str(text.resolve())}
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(json.dumps(request) + '\n')
            self._process.stdin.flush()
        except OSError as e:
            self.close()
            raise PageServiceError(f'Saccade is not running ({e.strerror})') from e
        reply = self._reply('reading the page')
        if reply.get('id') != request['id']:
            self.close()
            raise PageServiceError(f'Saccade answered out of turn: {reply}')
        if 'error' in reply:
            raise PageServiceError(f'Saccade could not read it: {reply["error"]}')
        return int(reply['words'])

    def close(self) -> None:
        """Ends the service: its input is closed, and it is killed if it does not end at once."""
        try:
            if self._process.stdin:
                self._process.stdin.close()
            self._process.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            self._process.kill()
            self._process.wait()


def service_for_this_worker(command: list[str], timeout: float) -> PageService:
    """This worker's service, started on its first page, and again after one stopped or for other options."""
    key = (os.getpid(), threading.get_ident())
    with _services_lock:
        service = _services.get(key)
    if service is not None and service.alive and service.command == command:
        service.timeout = timeout
        return service
    if service is not None:
        service.close()
    service = PageService(command, timeout)
    with _services_lock:
        _services[key] = service
    return service


def forget_this_workers_service_if_stopped() -> None:
    """Drops a service that stopped or timed out, so that the next page starts a new one."""
    key = (os.getpid(), threading.get_ident())
    with _services_lock:
        if key in _services and not _services[key].alive:
            del _services[key]
