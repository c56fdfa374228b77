"""Ending a pool of worker processes, shared by the lab (its runs and ladders) and the
review: both stop their pools the same way when a command is interrupted."""


def stop_local_pool(pool, finished):
    """Shut `pool` (a concurrent.futures.ProcessPoolExecutor) down: waiting for it when its
    work `finished`; else (interrupted, failed, a worker lost) its workers may be busy with
    dropped work, so they are ended by their handles and joined, gone before the command
    says it stopped."""
    if finished:
        pool.shutdown(wait=True)
        return
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(5)
