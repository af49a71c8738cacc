/**
 * The statement importers' layouts (MTN's and Orange's exports): each column is accepted under
 * its documented name or an alias, whatever the case, accents and separators; an unknown layout
 * is refused in French listing each missing column with the names it is accepted under and the
 * columns found; a bad row is refused naming its line.
 */
import { describe, expect, it } from 'vitest';
import { importMtnStatement } from './mtn-momo/mtn-statement-csv.ts';
import { importOrangeStatement } from './orange-money/orange-statement-csv.ts';
import { StatementFormatError } from './statement.ts';

const MTN = [
  'Id,External Transaction Id,Date,Status,Type,From,To,Amount,Currency,Reversal Of',
  '7261530001,KL-IN-1,2026-11-20 09:15:02,SUCCESSFUL,PAYMENT,237677000001,,12500,XAF,',
  '7261530002,KL-OUT-1,2026-11-20 10:00:00,SUCCESSFUL,TRANSFER,,237677000002,-5000,XAF,',
].join('\n');

const ORANGE = [
  'Date;Heure;Référence;Type;Statut;Numéro;Montant;Devise;Référence commande',
  '20/11/2026;10:15:02;MP261120.1015.A00001;Paiement marchand;Succès;237699000001;12 500;XAF;KL-IN-2',
].join('\n');

const errorOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(StatementFormatError);
    return (e as Error).message;
  }
  throw new Error('expected a StatementFormatError');
};

describe('MTN statement layouts', () => {
  it('reads the documented header and the same file under aliases, case and separators aside', () => {
    const records = importMtnStatement(MTN);
    expect(records).toEqual([
      expect.objectContaining({ operatorTransactionId: '7261530001', reference: 'KL-IN-1', amount: 12500, direction: 'IN', status: 'SUCCEEDED', kind: 'PAYMENT' }),
      expect.objectContaining({ operatorTransactionId: '7261530002', reference: 'KL-OUT-1', amount: 5000, direction: 'OUT', kind: 'PAYMENT' }),
    ]);
    const aliased = MTN.replace(
      'Id,External Transaction Id,Date,Status,Type,From,To,Amount,Currency,Reversal Of',
      'Financial Transaction Id,external_id,TRANSACTION DATE,Transaction Status,transaction-type,From,To,amount,Currency,Original Transaction Id',
    );
    expect(importMtnStatement(aliased)).toEqual(records);
    expect(importMtnStatement(`\uFEFF${aliased.replace(/\n/g, '\r\n')}`)).toEqual(records);
  });

  it('refuses an unknown layout in French, listing each missing column, its accepted names, and the columns found', () => {
    const message = errorOf(() => importMtnStatement('Transaction,Reference,When,Amount,Currency\n1,KL-1,2026-11-20 09:15:02,100,XAF'));
    expect(message).toBe(
      'présentation inconnue : colonne(s) manquante(s) « Id » (ou « Transaction Id », « Financial Transaction Id », « financialTransactionId »), ' +
        '« External Transaction Id » (ou « External Id », « externalId », « External Reference »), « Date » (ou « Transaction Date », « Date Time »), ' +
        '« Status » (ou « Transaction Status »), « Type » (ou « Transaction Type ») ; ' +
        "colonnes de la ligne d'en-tête : « Transaction », « Reference », « When », « Amount », « Currency »",
    );
    expect(errorOf(() => importMtnStatement(''))).toMatch(/^présentation inconnue : .*colonnes de la ligne d'en-tête : aucune$/);
  });

  it('names the first bad line in French', () => {
    expect(errorOf(() => importMtnStatement(MTN.replace(',-5000,', ',cinq mille,')))).toBe('ligne 3 : Amount invalide « cinq mille »');
    expect(errorOf(() => importMtnStatement(MTN.replace('SUCCESSFUL,PAYMENT', 'PENDING,PAYMENT')))).toBe('ligne 2 : Status inconnu « PENDING » (attendu SUCCESSFUL ou FAILED)');
  });
});

describe('Orange statement layouts', () => {
  it('reads the French header and an English export under aliases', () => {
    const records = importOrangeStatement(ORANGE);
    expect(records).toEqual([
      expect.objectContaining({ operatorTransactionId: 'MP261120.1015.A00001', reference: 'KL-IN-2', amount: 12500, direction: 'IN', status: 'SUCCEEDED', at: new Date('2026-11-20T09:15:02Z') }),
    ]);
    const english = ORANGE.replace('Date;Heure;Référence;Type;Statut;Numéro;Montant;Devise;Référence commande', 'DATE;Time;Transaction ID;Transaction type;Status;Number;Amount;Currency;Order Id');
    expect(importOrangeStatement(english)).toEqual(records);
    // Accents and case aside: "Reference commande" is "Référence commande".
    expect(importOrangeStatement(ORANGE.replace('Référence commande', 'REFERENCE COMMANDE'))).toEqual(records);
  });

  it('refuses a comma-separated file as an unknown layout, listing the missing columns', () => {
    const message = errorOf(() => importOrangeStatement(ORANGE.replace(/;/g, ',')));
    expect(message).toMatch(/^présentation inconnue : colonne\(s\) manquante\(s\) « Date », « Heure » \(ou « Time »\), « Référence » \(ou « Txnid », /);
    expect(message).toContain('« Référence commande » (ou « Order Id », « orderId », « Référence marchand »)');
  });
});
