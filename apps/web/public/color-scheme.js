/* global window */
// The colour scheme before the first paint: the stored choice (light / dark / auto, written by
// the app's switch through Mantine's localStorage manager) or the system's. Loaded in <head> as
// a file, not inline: the Content-Security-Policy allows scripts from 'self' only. Without it a
// dark-mode visitor would see the page light until the app's code starts.
(function () {
  var stored = null;
  try {
    stored = window.localStorage.getItem('warren-color-scheme');
  } catch {
    // Storage blocked: follow the system.
  }
  var dark = stored === 'dark' || (stored !== 'light' && !!window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches);
  var root = document.documentElement;
  root.setAttribute('data-mantine-color-scheme', dark ? 'dark' : 'light');
  root.style.colorScheme = dark ? 'dark' : 'light';
})();
