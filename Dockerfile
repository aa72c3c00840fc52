# Weave: one image for the API and the worker (the command picks which).
FROM node:22-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages ./packages
COPY apps ./apps
COPY bench/package.json ./bench/package.json
COPY migrations ./migrations
COPY openapi ./openapi
RUN npm ci --no-audit --no-fund --workspaces --include-workspace-root \
  && npm cache clean --force
USER node
EXPOSE 3000
ENTRYPOINT ["node", "--import", "tsx", "apps/cli/src/main.ts"]
CMD ["start"]
