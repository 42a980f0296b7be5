import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';
import { fileURLToPath } from 'node:url';

const fake = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// The generated wailsjs bindings need the Wails runtime on window; tests swap
// them for in-memory fakes that record calls and can fire events.
export default defineConfig({
  plugins: [svelte(), svelteTesting()],
  resolve: {
    alias: [
      { find: /^.*\/wailsjs\/go\/main\/App(\.js)?$/, replacement: fake('./src/test/fakes/App.ts') },
      { find: /^.*\/wailsjs\/runtime\/runtime(\.js)?$/, replacement: fake('./src/test/fakes/runtime.ts') },
    ],
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
    setupFiles: ['./src/test/setup.ts'],
  },
});
