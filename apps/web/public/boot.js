/* global PerformanceObserver, MessageChannel */
// Starts the app on pages the server rendered (apps/api/src/plugins/spa.ts puts this script there
// instead of the app's own tags). The page is already on screen: its code is asked for only after
// the first contentful paint has been presented, so on a slow link ~200 kB of script does not
// compete with the page's HTML, styles and font. A requestAnimationFrame callback runs *before*
// its frame is painted, so the paint timing entry (delivered after the frame is on screen) is the
// signal; browsers without it fall back to the frame after next. Hidden tabs (no frames) start at once.
(function () {
  var me = document.currentScript;
  if (!me) return;
  var entry = me.getAttribute('data-entry');
  var preload = (me.getAttribute('data-modulepreload') || '').split(' ').filter(Boolean);
  var started = false;
  // Each request a link starts is main-thread work (~1 ms each, ~30 files on the checkout): a few
  // per task, so that starting the app is several short tasks, not one long one.
  var PER_TASK = 4;
  function nextTask(fn) {
    var channel = new MessageChannel();
    channel.port1.onmessage = function () {
      channel.port1.close();
      fn();
    };
    channel.port2.postMessage(null);
  }
  function preloadFrom(i) {
    preload.slice(i, i + PER_TASK).forEach(function (href) {
      var link = document.createElement('link');
      link.rel = 'modulepreload';
      link.crossOrigin = '';
      link.href = href;
      document.head.appendChild(link);
    });
    if (i + PER_TASK < preload.length) nextTask(function () {
      preloadFrom(i + PER_TASK);
    });
  }
  function start() {
    if (started) return;
    started = true;
    var script = document.createElement('script');
    script.type = 'module';
    script.crossOrigin = '';
    script.src = entry;
    document.head.appendChild(script);
    nextTask(function () {
      preloadFrom(0);
    });
  }
  function afterNextFrame() {
    requestAnimationFrame(function () {
      setTimeout(start, 0);
    });
  }
  if (document.visibilityState === 'hidden') return start();
  // A tab put in the background before its first paint starts when hidden (no paint will come).
  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'hidden') start();
  });
  var supported = typeof PerformanceObserver === 'function' && (PerformanceObserver.supportedEntryTypes || []).indexOf('paint') >= 0;
  if (!supported) return afterNextFrame();
  try {
    var observer = new PerformanceObserver(function (list) {
      if (!list.getEntriesByName('first-contentful-paint').length) return;
      observer.disconnect();
      setTimeout(start, 0);
    });
    observer.observe({ type: 'paint', buffered: true });
    // A page that paints no content (it should not happen: the server rendered one) still starts.
    setTimeout(start, 5000);
  } catch {
    afterNextFrame();
  }
})();
