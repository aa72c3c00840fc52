-- Cross-tenant aggregates for /metrics (filled in by the metrics work).
SELECT 1;
