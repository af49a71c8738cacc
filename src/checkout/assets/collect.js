// Kolo fund collection page: optional enhancements. Without this file the form posts as HTML
// (POST /collect/{slug}/pay) and the waiting screen refreshes itself (<noscript> meta refresh).
(function () {
  'use strict';
  var FIELDS = { amount: 'amount', paymentMethod: 'paymentMethod', payerAccount: 'payerAccount', payerEmail: 'payerEmail' };

  function clearErrors(form) {
    form.querySelectorAll('.field-error[data-js]').forEach(function (p) { p.remove(); });
    form.querySelectorAll('[aria-invalid]').forEach(function (el) { el.removeAttribute('aria-invalid'); });
    var banner = document.getElementById('form-error');
    if (banner) { banner.hidden = true; banner.textContent = ''; }
  }

  function showFieldError(form, field, text) {
    var input = field === 'paymentMethod' ? form.querySelector('fieldset') : document.getElementById(field);
    if (!input) return false;
    var p = document.createElement('p');
    p.className = 'field-error';
    p.id = field + '-error';
    p.setAttribute('data-js', '');
    p.textContent = text;
    if (field === 'paymentMethod') { input.appendChild(p); } else {
      input.setAttribute('aria-invalid', 'true');
      input.insertAdjacentElement('afterend', p);
    }
    return true;
  }

  function showBanner(text) {
    var banner = document.getElementById('form-error');
    if (!banner) return;
    banner.textContent = text;
    banner.hidden = false;
    banner.focus && banner.scrollIntoView({ block: 'center' });
  }

  var form = document.getElementById('collect-form');
  if (form && window.fetch && window.FormData) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var button = form.querySelector('button[type=submit]');
      clearErrors(form);
      var data = new FormData(form);
      var body = { slug: form.getAttribute('data-slug') };
      ['paymentMethod', 'payerAccount', 'payerName', 'payerEmail'].forEach(function (name) {
        var value = data.get(name);
        if (typeof value === 'string' && value.trim() !== '') body[name] = value.trim();
      });
      var amount = data.get('amount');
      if (typeof amount === 'string') {
        var digits = amount.replace(/[\s.]/g, '');
        if (!/^[0-9]{1,12}$/.test(digits) || Number(digits) < 1) {
          showFieldError(form, 'amount', digits === '' ? 'Saisissez le montant que vous souhaitez donner.' : 'Saisissez un montant en chiffres, sans décimales (par exemple 5000).');
          return;
        }
        body.amount = Number(digits);
      }
      if (button) { button.disabled = true; button.setAttribute('aria-busy', 'true'); }
      fetch(form.getAttribute('data-confirm-url'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        credentials: 'same-origin',
      })
        .then(function (response) { return response.json().then(function (json) { return { status: response.status, json: json }; }); })
        .then(function (result) {
          var json = result.json || {};
          if (result.status === 201 && json.data) {
            window.location.assign(json.data.redirectUrl || json.data.statusUrl);
            return;
          }
          if (json.code === 'COLLECTION_NOT_AVAILABLE' || json.code === 'COLLECTION_NOT_FOUND') { window.location.reload(); return; }
          var shown = false;
          if (json.code === 'VALIDATION_ERROR' && json.data) {
            Object.keys(json.data).forEach(function (field) {
              if (FIELDS[field]) shown = showFieldError(form, field, json.data[field]) || shown;
            });
          }
          if (json.code === 'PROVIDER_NOT_FOUND') shown = showFieldError(form, 'paymentMethod', 'Choisissez votre opérateur.');
          if (!shown) showBanner(json.message || 'Le paiement n’a pas pu être démarré. Réessayez.');
          if (button) { button.disabled = false; button.removeAttribute('aria-busy'); }
        })
        .catch(function () {
          showBanner('La connexion a échoué. Vérifiez votre réseau et réessayez.');
          if (button) { button.disabled = false; button.removeAttribute('aria-busy'); }
        });
    });
  }

  // While waiting for the phone, follow the status; reload the page when it is settled.
  var waiting = document.querySelector('[data-status-url]');
  if (!waiting) return;
  var url = waiting.getAttribute('data-status-url');
  var polls = 0;
  function poll() {
    if (++polls > 450) return; // bounded: about 15 minutes at one poll every 2 s
    fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin' })
      .then(function (response) { return response.json().then(function (body) { return { ok: response.ok, data: body && body.data }; }); })
      .then(function (result) {
        if (!result.ok || !result.data || result.data.status !== 'PENDING') window.location.reload();
        else setTimeout(poll, 2000);
      })
      .catch(function () { setTimeout(poll, 4000); });
  }
  setTimeout(poll, 2000);
})();
