import StoreCore
