#!/usr/bin/env python3
"""Leaves a pod half deleted, as a client that goes away in the middle of a DELETE does.

The API server deletes a pod in two writes: it sets metadata.deletionTimestamp with grace period 0,
then removes the pod. A client whose connection closes between the two cancels the second, and
the pod stays with its deletionTimestamp: a kubelet then removes it (kwok's stage
arbiter-pod-delete-unfinished plays that part). This script makes Failed pods on a node and
deletes each over a connection it resets right after sending the request, until one is left half
deleted; it prints that pod's name, or nothing after --tries tries.

Usage: abandoned_delete.py --server URL --ca-file FILE --token TOKEN --node NODE [--tries N]
"""

import argparse
import json
import random
import socket
import ssl
import struct
import time
import urllib.error
import urllib.request


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True)
    parser.add_argument("--ca-file", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--node", required=True)
    parser.add_argument("--tries", type=int, default=60)
    args = parser.parse_args()
    server, token = args.server, args.token
    tls = ssl.create_default_context(cafile=args.ca_file)
    host, port = server.removeprefix("https://").rsplit(":", 1)
    headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}

    def call(method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(server + path, method=method, headers=headers, data=data)
        try:
            with urllib.request.urlopen(request, context=tls, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as e:
            return e.code, None

    pods = "/api/v1/namespaces/default/pods"
    for i in range(args.tries):
        name = f"abandoned-delete-{i}"
        call("POST", pods, {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "annotations": {
                "arbiter.dev/run-for": "0s", "arbiter.dev/exit-code": "3"}},
            "spec": {"nodeName": args.node, "restartPolicy": "Never",
                     "containers": [{"name": "main", "image": "registry.invalid/x:1"}]}})
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            status, pod = call("GET", f"{pods}/{name}")
            if pod is not None and pod.get("status", {}).get("phase") == "Failed":
                break
            time.sleep(0.05)
        # A Failed pod is removed without a grace period: its two writes follow each other at
        # once, so the reset lands between them only now and then, at a random point.
        raw = tls.wrap_socket(socket.create_connection((host, int(port))), server_hostname=host)
        raw.sendall((f"DELETE {pods}/{name} HTTP/1.1\r\nHost: {host}\r\n"
                     f"Authorization: Bearer {token}\r\nContent-Length: 0\r\n\r\n").encode())
        time.sleep(random.uniform(0, 0.004))
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        raw.close()
        # Whether the API server finished the delete shows in a later read; 50 ms is well within
        # the second kwok waits before removing a half-deleted pod.
        time.sleep(0.05)
        status, pod = call("GET", f"{pods}/{name}")
        if status == 200 and pod["metadata"].get("deletionTimestamp"):
            print(name)
            return
        if status == 200:
            call("DELETE", f"{pods}/{name}")


if __name__ == "__main__":
    main()
