import signal, threading
from leasehold import DeadLetter, FileIdempotencyStore, Leasehold, SpoolMessage

stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())          # exit cleanly: consume returns, close releases

with Leasehold(base_url="http://127.0.0.1:4010", api_key="lh_test_admin",
               idempotency_store=FileIdempotencyStore(".leasehold/idempotency")) as lh:
    run = lh.space("6f1c2b9e-8d4a-4c1e-9b7a-3e2f1d0c9b8a").run("0b7e4c6a-1f2d-4e3b-8a9c-5d6e7f8a9b0c", holder="report-worker")
    with run.claim("reports/2026-11").acquire(operation_id="report-2026-11") as lease:  # waits its turn, renewed
        lease.raise_if_lost()                                  # LeaseLostError once it can't be trusted
        print("building the report under fence", lease.fence)

    def charge(message: SpoolMessage) -> None:                 # return: acked; raise: nacked with backoff
        print("charging", message.body)

    lh.spool("billing").queue("invoices").consume(
        charge, stop=stop, max_deliveries=5, dead_letter=DeadLetter("billing", "dead"))
