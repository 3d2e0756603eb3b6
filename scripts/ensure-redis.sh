#!/usr/bin/env bash
# Makes sure a Redis answers on 127.0.0.1:6379: starts one if none does, installs it with apt-get if missing.
set -euo pipefail
host=127.0.0.1 port=6379

ping_redis() {
  # No redis-cli needed: speak RESP over bash's /dev/tcp.
  exec 3<>"/dev/tcp/$host/$port" 2>/dev/null || return 1
  printf 'PING\r\n' >&3
  local reply=''
  read -r -t 2 reply <&3 || true
  exec 3>&- 3<&-
  [[ "$reply" == +PONG* ]]
}

if ping_redis; then echo "redis: answering on $host:$port"; exit 0; fi
if ! command -v redis-server >/dev/null 2>&1; then
  echo "redis: not installed; installing redis-server with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq redis-server >/dev/null
fi
mkdir -p /tmp/isync-redis
redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save '' --appendonly no \
  --dir /tmp/isync-redis --logfile /tmp/isync-redis/redis.log
for _ in $(seq 1 50); do
  if ping_redis; then echo "redis: started on $host:$port"; exit 0; fi
  sleep 0.2
done
echo "redis: could not start (see /tmp/isync-redis/redis.log)" >&2
exit 1
