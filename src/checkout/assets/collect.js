// Kolo fund collection page: optional enhancements. Without this file the form posts as HTML
// (POST /collect/{slug}/pay) and the waiting screen refreshes itself (<noscript> meta refresh).
// Its texts come from the page, in the page's language (the form's data-messages attribute: the
// `script` part of src/checkout/page-messages.ts).
(function () {
  'use strict';
  // The form's fields (the JSON API's names) → the page's sentence for a refused value.
  var FIELDS = { amount: 'amountRefused', paymentMethod: 'chooseOperator', payerAccount: 'numberRefused', payerEmail: 'emailRefused' };

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
  var messages = null;
  try { messages = form && JSON.parse(form.getAttribute('data-messages')); } catch (e) { messages = null; }
  if (form && messages && window.fetch && window.FormData) {
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
        // Typed in major units, sent in base units: the same rule as parseAmountInput (src/checkout/format.ts).
        var decimals = Number(form.getAttribute('data-amount-decimals')) || 0;
        var compact = amount.replace(/\s/g, '');
        if (decimals === 0 && /^[0-9]{1,3}(\.[0-9]{3})+$/.test(compact)) compact = compact.replace(/\./g, '');
        var match = decimals === 0 ? /^([0-9]{1,12})$/.exec(compact) : new RegExp('^([0-9]{1,12})(?:[.,]([0-9]{1,' + decimals + '}))?$').exec(compact);
        var baseUnits = match ? Number(match[1]) * Math.pow(10, decimals) + Number((match[2] || '').padEnd(decimals, '0') || '0') : 0;
        if (baseUnits < 1) {
          showFieldError(form, 'amount', compact === '' ? messages.amountRequired : decimals === 0 ? messages.amountInvalid : messages.amountInvalidDecimals);
          return;
        }
        body.amount = baseUnits;
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
          // The API answers in French: its texts are shown as they are on a French page, the
          // page's own sentence for the field otherwise.
          var shown = false;
          if (json.code === 'VALIDATION_ERROR' && json.data) {
            Object.keys(json.data).forEach(function (field) {
              if (FIELDS[field]) shown = showFieldError(form, field, messages.useApiMessages ? json.data[field] : messages[FIELDS[field]]) || shown;
            });
          }
          if (json.code === 'AMOUNT_BELOW_MINIMUM' || json.code === 'AMOUNT_ABOVE_MAXIMUM') {
            var amountField = document.getElementById('amount') ? 'amount' : 'paymentMethod';
            shown = showFieldError(form, amountField, messages.useApiMessages ? json.message : messages.amountRefused);
          }
          if (json.code === 'PROVIDER_NOT_FOUND') shown = showFieldError(form, 'paymentMethod', messages.chooseOperator);
          if (!shown) showBanner(messages.useApiMessages && json.message ? json.message : messages.startFailed);
          if (button) { button.disabled = false; button.removeAttribute('aria-busy'); }
        })
        .catch(function () {
          showBanner(messages.network);
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
