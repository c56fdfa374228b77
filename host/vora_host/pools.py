"""Ending a pool of worker processes, shared by the lab (its runs and ladders) and the
review: both stop their pools the same way when a command is interrupted."""

import time

# How long stopped workers have to end on SIGTERM before they are killed outright: a
# worker whose start inherited SIGTERM ignored (some runners and supervisors start
# programs so) shrugs it off and would play on after its command said it stopped.
TERMINATE_GRACE_S = 5.0


def stop_local_pool(pool, finished):
    """Shut `pool` (a concurrent.futures.ProcessPoolExecutor) down: waiting for it when its
    work `finished`; else (interrupted, failed, a worker lost) its workers may be busy with
    dropped work, so they are ended by their handles (SIGTERM, then SIGKILL for any still
    there after TERMINATE_GRACE_S) and joined, gone before the command says it stopped."""
    if finished:
        pool.shutdown(wait=True)
        return
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    deadline = time.monotonic() + TERMINATE_GRACE_S
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.kill()
            process.join()
    # The pool's own thread reaps the workers too, once it sees them gone: a process reaped
    # by one thread while the other looks is "alive" to the other (its wait finds no child
    # and says nothing), so is_alive() is only true to the facts once that thread is done.
    if manager is not None and manager.is_alive():
        manager.join(TERMINATE_GRACE_S)
