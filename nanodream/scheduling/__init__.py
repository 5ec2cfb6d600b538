"""When to dream: due times, the foreground scheduler, the host-busy protocol, cron/systemd snippets."""
