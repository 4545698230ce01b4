# A local stand-in for the official rabbitmq image, for machines that reach no image registry: Debian 13's
# RabbitMQ 4.0 (with Erlang 27) on the Debian 13 base that scripts/local-docker.sh builds with debootstrap.
#
# Like the official image it runs the node in the foreground as user rabbitmq, logs to standard output and creates
# the user RABBITMQ_DEFAULT_USER with RABBITMQ_DEFAULT_PASS on first start. Unlike it, the management plugin is not
# enabled. Every RABBITMQ_* and ERL_EPMD_* variable of the server applies, which is how deploy/compose.loopback.yaml
# moves the node, its Erlang distribution port and its epmd to loopback ports of their own.
ARG BASE=harbinger-local/debian:13
FROM ${BASE}
RUN apt-get update -q \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends rabbitmq-server \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/*
ENV RABBITMQ_LOGS=- HOME=/var/lib/rabbitmq LANG=C.UTF-8
USER rabbitmq
WORKDIR /var/lib/rabbitmq
EXPOSE 5672
CMD ["/usr/lib/rabbitmq/bin/rabbitmq-server"]
