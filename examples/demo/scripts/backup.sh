#!/usr/bin/env bash
# Nightly (cron on the database host): a pg_dump of the shop's database into the bucket,
# under its backups prefix. The bucket's lifecycle rule deletes them after 30 days; WAL
# archiving (archive_command in postgresql.conf) covers point-in-time restore.
set -euo pipefail
stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
pg_dump --format=custom --no-owner "${DATABASE_URL/+psycopg/}" |
    aws s3 cp - "s3://${BUCKET}/backups/shop-${stamp}.dump" --endpoint-url "${S3_ENDPOINT}"
