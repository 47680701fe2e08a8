-- Nothing to do on PostgreSQL. On SQLite event_queue.id lost AUTOINCREMENT here, whose
-- sqlite_sequence page every insert rewrote; PostgreSQL's identity is a sequence, which costs no
-- such write and never hands out an id twice.
SELECT 1;
