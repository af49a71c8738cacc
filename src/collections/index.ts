/**
 * Fund collections: a merchant's public collection pages (create, update, close, reopen, delete,
 * list) and the payments made on them by anyone with the link.
 */
export {
  COLLECTION_STATUSES,
  closeFundCollection,
  collectionStatus,
  collectionView,
  createFundCollection,
  deleteFundCollection,
  findCollectionBySlug,
  findFundCollection,
  listFundCollections,
  reopenFundCollection,
  updateFundCollection,
  type CollectionViewer,
  type FundCollectionRow,
  type FundCollectionView,
} from './fund-collections.ts';
export { collectionRails, findCollectPayment, findOpenCollection, payFundCollection, refreshCollectPayment, type OpenCollection } from './pay-fund-collection.ts';
