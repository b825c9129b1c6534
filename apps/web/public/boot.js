// Starts the app on pages the server rendered (apps/api/src/plugins/spa.ts puts this script there
// instead of the app's own tags). The page is already on screen: its code is asked for only after
// the first paint, so on a slow link ~200 kB of script does not compete with the page's HTML and
// styles. Hidden tabs (no frames) start at once.
(function () {
  var me = document.currentScript;
  if (!me) return;
  var entry = me.getAttribute('data-entry');
  var preload = (me.getAttribute('data-modulepreload') || '').split(' ').filter(Boolean);
  function start() {
    preload.forEach(function (href) {
      var link = document.createElement('link');
      link.rel = 'modulepreload';
      link.crossOrigin = '';
      link.href = href;
      document.head.appendChild(link);
    });
    var script = document.createElement('script');
    script.type = 'module';
    script.crossOrigin = '';
    script.src = entry;
    document.head.appendChild(script);
  }
  if (document.visibilityState === 'hidden') start();
  else
    requestAnimationFrame(function () {
      setTimeout(start, 0);
    });
})();
