import '@testing-library/jest-dom/vitest';
import { mediaQueryList } from './media';

// The server render's tests run in Node (`@vitest-environment node`): no window there.
if (typeof window !== 'undefined') {
  if (!window.matchMedia) {
    Object.defineProperty(window, 'matchMedia', {
      writable: true,
      value: (query: string) => mediaQueryList(query, false),
    });
  }

  class ResizeObserverStub {
    observe() {}
    unobserve() {}
    disconnect() {}
  }
  if (!('ResizeObserver' in window)) {
    (window as unknown as { ResizeObserver: unknown }).ResizeObserver = ResizeObserverStub;
  }
  window.HTMLElement.prototype.scrollIntoView ??= () => {};
}

import { afterEach } from 'vitest';
import { cleanup } from '@testing-library/react';
afterEach(() => cleanup());
