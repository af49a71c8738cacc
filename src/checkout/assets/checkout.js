// Kolo hosted checkout: optional enhancements. The page works without this file (plain form
// posts, and a <noscript> meta refresh while waiting for the phone's confirmation).
(function () {
  'use strict';
  // Forms are posted once: the button is disabled while the request is on its way.
  document.querySelectorAll('form').forEach(function (form) {
    form.addEventListener('submit', function () {
      var button = form.querySelector('button[type=submit]');
      if (button) { button.disabled = true; button.setAttribute('aria-busy', 'true'); }
    });
  });
  // While waiting for the phone, follow the status; reload the page when anything changes.
  var waiting = document.querySelector('[data-status-url]');
  if (!waiting) return;
  var url = waiting.getAttribute('data-status-url');
  var polls = 0;
  function poll() {
    if (++polls > 450) return; // bounded: about 15 minutes at one poll every 2 s
    fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin' })
      .then(function (response) {
        return response.json().then(function (body) { return { ok: response.ok, data: body && body.data }; });
      })
      .then(function (result) {
        if (!result.ok || !result.data || result.data.status !== 'PENDING' || result.data.attemptStatus !== 'PENDING') {
          window.location.reload();
        } else {
          setTimeout(poll, 2000);
        }
      })
      .catch(function () { setTimeout(poll, 4000); });
  }
  setTimeout(poll, 2000);
})();
