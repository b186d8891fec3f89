"""Several processes on one file (as several MCP clients would be), and kill -9 safety."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

from ebbtide import open_memory

WRITER = textwrap.dedent(
    """
    import sys
    from ebbtide import open_memory
    path, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    mem = open_memory(path)
    prev = None
    for i in range(n):
        node = mem.remember(f"{name} wrote item {i}")
        if prev is not None:
            mem.connect(prev, node.id)
        prev = node.id
        print(node.id, flush=True)
    """
)


def spawn(path, name, n):
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), name, str(n)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_processes_writing_at_once_lose_nothing(tmp_path):
    path = tmp_path / "shared.db"
    open_memory(path).close()
    procs = [spawn(path, name, 150) for name in ("alpha", "beta")]
    outputs = [p.communicate(timeout=240) for p in procs]
    for p, (_, stderr) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, stderr
    acknowledged = [line for out, _ in outputs for line in out.split()]
    assert len(acknowledged) == 300
    with open_memory(path) as mem:
        stored = mem.store.get_nodes(acknowledged)
        assert len(stored) == 300
        assert mem.stats().edges == 2 * 149


def test_a_write_that_returned_survives_kill_9(tmp_path):
    path = tmp_path / "killed.db"
    proc = spawn(path, "victim", 100_000)
    acknowledged = []
    for line in proc.stdout:
        acknowledged.append(line.strip())
        if len(acknowledged) == 40:
            os.kill(proc.pid, signal.SIGKILL)
            break
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    with open_memory(path) as mem:
        assert set(mem.store.get_nodes(acknowledged)) == set(acknowledged)


def test_a_node_another_process_changed_is_read_as_changed(tmp_path):
    path = tmp_path / "shared.db"
    mine = open_memory(path, embeddings="none")
    note = mine.remember("The deploy freeze starts on Friday")
    assert mine.store.get_nodes([note.id])[note.id].text == note.text
    changer = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import sys
                from ebbtide import open_memory
                mem = open_memory(sys.argv[1], embeddings="none")
                node = mem.store.get_nodes([sys.argv[2]])[sys.argv[2]]
                mem.store.update_node(node.model_copy(update={"text": "Freeze moved to Monday"}))
                mem.forget(sys.argv[2])
                """
            ),
            str(path),
            note.id,
        ],
        capture_output=True,
        text=True,
    )
    assert changer.returncode == 0, changer.stderr
    seen = mine.store.get_nodes([note.id])[note.id]
    assert seen.text == "Freeze moved to Monday"
    assert seen.status == "forgotten"
    mine.close()


def test_what_another_connection_commits_replaces_what_a_reader_had_read(tmp_path):
    path = tmp_path / "shared.db"
    reader, writer = open_memory(path, embeddings="none"), open_memory(path, embeddings="none")
    kept = reader.remember("The staging database is Postgres 15")
    gone = reader.remember("The old cron host is cron-1")

    def read(ident):
        return reader.store.get_nodes([ident]).get(ident)

    assert read(kept.id).read_count == 0 and read(gone.id) is not None
    writer.store.touch([kept.id], [], kept.created_at.timestamp() + 60)
    assert read(kept.id).read_count == 1
    writer.store.write_activation([kept.id], [0.25], ["cold"], ["active"])
    assert (read(kept.id).activation, read(kept.id).tier) == (0.25, "cold")
    writer.store.update_node(read(kept.id).model_copy(update={"text": "Staging is on 16 now"}))
    assert read(kept.id).text == "Staging is on 16 now"
    writer.store.delete_node(gone.id)
    assert read(gone.id) is None
    reader.close()
    writer.close()
