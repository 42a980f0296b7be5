import { defineConfig, type Plugin } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

// dist/.gitkeep is committed so a fresh clone compiles (main.go embeds
// frontend/dist); the build empties dist, so it is written back afterwards.
function keepDist(): Plugin {
  return {
    name: 'baton-keep-dist',
    closeBundle() {
      writeFileSync(resolve(import.meta.dirname, 'dist/.gitkeep'), '');
    },
  };
}

export default defineConfig({
  plugins: [svelte(), keepDist()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
  },
});
