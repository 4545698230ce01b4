# A local stand-in for the official redis image, for machines that reach no image registry: Debian 13's Redis 8.0
# on the Debian 13 base that scripts/local-docker.sh builds with debootstrap. It runs redis-server in the foreground
# as user redis; compose passes the arguments (port, bind address, no persistence).
ARG BASE=harbinger-local/debian:13
FROM ${BASE}
RUN apt-get update -q \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends redis-server \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/*
USER redis
WORKDIR /var/lib/redis
EXPOSE 6379
CMD ["redis-server", "--protected-mode", "no", "--save", "", "--appendonly", "no"]
