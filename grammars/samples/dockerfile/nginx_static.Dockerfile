FROM nginx:1.25.3@sha256:4c0fdaa8b6341bfdeca5f18f7837462c80cff90527ee35ef185571e1c327beac
ADD https://example.com/assets.tar.gz /tmp/assets.tar.gz
RUN set -eux; \
	tar -xzf /tmp/assets.tar.gz -C /usr/share/nginx/html; \
	rm /tmp/assets.tar.gz
COPY nginx.conf /etc/nginx/conf.d/default.conf
SHELL ["/bin/sh", "-o", "pipefail", "-c"]
ONBUILD COPY site/ /usr/share/nginx/html/
HEALTHCHECK NONE
ARG BUILD_DATE
LABEL maintainer="ops@example.com" version="1.4" "com.example.vendor"="ACME Inc"
USER 101
