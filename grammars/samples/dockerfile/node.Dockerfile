FROM --platform=$BUILDPLATFORM node:20-alpine AS deps
WORKDIR /usr/src/app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev

FROM node:20-alpine
ENV NODE_ENV production
WORKDIR /usr/src/app
COPY --from=deps /usr/src/app/node_modules ./node_modules
COPY . .
VOLUME ["/data"]
EXPOSE 3000 9229
STOPSIGNAL SIGTERM
CMD node server.js
