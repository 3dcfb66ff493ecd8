# -----------------------------------------------------------------
# Base image for the batch jobs.
#
# Build:
#   docker build -t jobs-base -f Dockerfile.base .
#
# The image only carries the runtime; each job copies its own code
# on top of it. Rebuild weekly to pick up security updates.
#
# Maintainer: platform team
# -----------------------------------------------------------------


FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates
WORKDIR     /jobs
