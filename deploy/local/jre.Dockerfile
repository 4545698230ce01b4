# A local stand-in for the Eclipse Temurin JRE image, for machines that reach no image registry: Debian 13's
# OpenJDK 21 runtime on the Debian 13 base that scripts/local-docker.sh builds with debootstrap. Harbinger's images
# are built on it with -Dimage.base=docker://harbinger-local/jre:21 (images/README.md).
ARG BASE=harbinger-local/debian:13
FROM ${BASE}
RUN apt-get update -q \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends openjdk-21-jre-headless \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/*
CMD ["java", "-version"]
